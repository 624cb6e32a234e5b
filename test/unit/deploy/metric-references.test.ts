// The Prometheus alert rules and the Grafana dashboard under deploy/ may use
// only metrics Keyflow exposes: those of the metric catalogue (with their own
// labels), the libraries' (process_, nodejs_, temporal_) and the series
// Prometheus adds itself (up). A renamed or dropped metric leaves a rule that
// never fires and a panel that stays empty without an error: this catches it.
import { LIBRARY_METRIC_PREFIXES, METRICS, type MetricSpec } from '../../../lib/model/metric-catalogue.js';
import { promqlReferences } from '../../support/promql.js';
import { alertRules, dashboard, panelsOf } from '../../support/deploy-queries.js';

const CATALOGUE: Record<string, MetricSpec> = METRICS;
/** Series Prometheus writes for every target. */
const PROMETHEUS_SERIES = new Set(['up']);
/** Labels Prometheus attaches to every series it scrapes (prometheus.yml). */
const TARGET_LABELS = ['job', 'instance'];
const HISTOGRAM_SERIES = /_(bucket|sum|count)$/;

/** What is wrong with the metrics and labels of one expression: nothing for a good one. */
function referenceProblems(expr: string): string[] {
  const { metrics, groupingLabels } = promqlReferences(expr);
  const problems: string[] = [];
  const labelsInExpr = new Set(TARGET_LABELS);
  for (const { name, labels } of metrics) {
    const base = name.replace(HISTOGRAM_SERIES, '');
    const spec = CATALOGUE[name] ?? (base !== name && CATALOGUE[base]?.type === 'histogram' ? CATALOGUE[base] : undefined);
    if (spec) {
      const allowed = [...spec.labels, ...TARGET_LABELS, ...(name.endsWith('_bucket') ? ['le'] : [])];
      for (const l of spec.labels) labelsInExpr.add(l);
      if (name.endsWith('_bucket')) labelsInExpr.add('le');
      for (const l of labels) if (!allowed.includes(l)) problems.push(`${name} has no label ${l}`);
    } else if (CATALOGUE[base]) {
      problems.push(`${name}: ${base} is a ${CATALOGUE[base].type}, not a histogram`);
    } else if (PROMETHEUS_SERIES.has(name) || LIBRARY_METRIC_PREFIXES.some((p) => name.startsWith(p))) {
      // Library metrics: their labels are the library's (worker_type, operation,
      // le…), so grouping labels go unchecked where one is used.
      for (const l of labels) labelsInExpr.add(l);
      labelsInExpr.add('le');
      labelsInExpr.add('*');
    } else {
      problems.push(`${name} is not in the metric catalogue`);
    }
  }
  if (metrics.length === 0) problems.push(`no metric found in ${expr}`);
  if (!labelsInExpr.has('*')) for (const l of groupingLabels) if (!labelsInExpr.has(l)) problems.push(`grouping by ${l}, a label of none of its metrics`);
  return problems;
}

describe('the PromQL of deploy/ against the metric catalogue', () => {
  it('every alert rule uses catalogue or library metrics, with their own labels', () => {
    const rules = alertRules();
    expect(rules.length).toBeGreaterThan(10);
    for (const rule of rules) expect([rule.alert, referenceProblems(rule.expr)]).toEqual([rule.alert, []]);
  });

  it('every dashboard query uses catalogue or library metrics, with their own labels', () => {
    const panels = panelsOf(dashboard().panels).filter((p) => p.type !== 'row');
    expect(panels.length).toBeGreaterThan(10);
    for (const panel of panels) {
      expect(panel.targets?.length).toBeGreaterThan(0);
      for (const { expr } of panel.targets ?? []) expect([panel.title, referenceProblems(expr ?? '')]).toEqual([panel.title, []]);
    }
  });

  it('the dashboard shows every catalogue metric', () => {
    const used = new Set(
      panelsOf(dashboard().panels)
        .flatMap((p) => p.targets ?? [])
        .flatMap(({ expr }) => promqlReferences(expr ?? '').metrics.map((m) => m.name.replace(HISTOGRAM_SERIES, ''))),
    );
    expect(Object.keys(METRICS).filter((m) => !used.has(m))).toEqual([]);
  });

  it('finds what is wrong: an unknown metric, a label the metric lacks, a counter read as a histogram', () => {
    expect(referenceProblems('sum(rate(keyflow_logins_total[5m]))')).toEqual(['keyflow_logins_total is not in the metric catalogue']);
    expect(referenceProblems('sum by (client_id) (rate(keyflow_token_requests_total{client_id="x"}[5m]))')).toEqual([
      'keyflow_token_requests_total has no label client_id',
      'grouping by client_id, a label of none of its metrics',
    ]);
    expect(referenceProblems('rate(keyflow_deliveries_total_bucket[5m])')).toEqual([
      'keyflow_deliveries_total_bucket: keyflow_deliveries_total is a counter, not a histogram',
    ]);
    expect(referenceProblems('keyflow_signing_key_age_seconds_count')).toEqual([
      'keyflow_signing_key_age_seconds_count: keyflow_signing_key_age_seconds is a gauge, not a histogram',
    ]);
    expect(referenceProblems('rate(keyflow_delivery_lag_seconds_sum{kind="webhook"}[5m])')).toEqual([]);
    expect(referenceProblems('sum by (worker_type) (temporal_worker_task_slots_available)')).toEqual([]);
  });

  it('reads metric and label names, not functions, keywords, durations, strings or Grafana variables', () => {
    const refs = promqlReferences(
      'histogram_quantile(0.99, sum by (route, le) (rate(http_server_request_duration_seconds_bucket{job=~"keyflow-.*", route!="/x"}[$__rate_interval] offset 1d)))' +
        ' / on (route) group_left max without (instance) (up) > bool 2.5e0 unless absent(nodejs_eventloop_delay_p99_seconds)',
    );
    expect(refs.metrics).toEqual([
      { name: 'http_server_request_duration_seconds_bucket', labels: ['job', 'route'] },
      { name: 'up', labels: [] },
      { name: 'nodejs_eventloop_delay_p99_seconds', labels: [] },
    ]);
    expect(refs.groupingLabels).toEqual(['route', 'le', 'route', 'instance']);
  });
});
