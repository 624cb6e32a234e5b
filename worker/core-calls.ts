// The worker's Temporal SDK metrics. Polls, task completions and the SDK's own
// measures (task slots, schedule-to-start latencies, poll failures) come from
// its native core (Rust), out of reach of the gRPC interceptor that counts the
// JavaScript client's calls. A metrics buffer collects core's updates and this
// module folds each into prom-client metrics of the same name (the worker's
// /metrics), and its request counters into temporal_calls_total as well.
//
// The buffer reports a counter's update as a delta, a gauge's and a
// histogram's as the value itself (one observation per update). With
// useSecondsForDurations its durations are in seconds (unit 's', else 'ms'):
// they are exported in seconds, under a `_seconds` name, as Prometheus names them.
import { MetricsBuffer } from '@temporalio/worker';
import type { Metric, MetricTags } from '@temporalio/common';
import { countTemporalCall, libraryMetric, type LibraryMetricKind } from '../lib/runtime/metrics.js';
import type { Counter, Gauge, Histogram } from 'prom-client';

/** Core names its request counters `temporal_request` (unary) and `temporal_long_request` (polls). */
const REQUEST_COUNTER = /(^|_)(long_)?request$/;

/**
 * The attributes core tags its metrics with: each takes values from a set the
 * SDK bounds (the worker's namespace and task queue, the registered workflow
 * and activity types, gRPC operation names, slot and poller kinds, status
 * codes). Any other attribute is left out (service_name is one constant).
 */
const LABELS = [
  'namespace',
  'task_queue',
  'workflow_type',
  'activity_type',
  'operation',
  'poller_type',
  'worker_type',
  'eager',
  'status_code',
  'failure_reason',
] as const;
const KEPT = new Set<string>(LABELS);

/** Latency buckets in seconds: a local task (ms) to a long poll (a minute and more). */
const SECONDS_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

type Folded = { kind: 'counter'; metric: Counter } | { kind: 'gauge'; metric: Gauge; add: boolean } | { kind: 'histogram'; metric: Histogram; scale: number };

/** Prometheus's name for core's metric: a `temporal_` prefix, `[a-z0-9_]` only, counters `_total`, durations `_seconds`. */
export function prometheusName(metric: Pick<Metric, 'name' | 'kind' | 'unit'>): string {
  let name = metric.name.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  if (!name.startsWith('temporal_')) name = `temporal_${name}`;
  if (metric.kind === 'histogram' && isDuration(metric.unit) && !name.endsWith('_seconds')) name += '_seconds';
  if (metric.kind === 'counter' && !name.endsWith('_total')) name += '_total';
  return name;
}

const isDuration = (unit: string | undefined) => unit === 's' || unit === 'ms' || unit === 'seconds' || unit === 'milliseconds';

function fold(metric: Metric): Folded | null {
  const name = prometheusName(metric);
  const help = metric.description || `Temporal SDK metric ${metric.name}.`;
  const kind: LibraryMetricKind = metric.kind === 'up-down-counter' ? 'gauge' : metric.kind;
  const duration = metric.kind === 'histogram' && isDuration(metric.unit);
  const made = libraryMetric('worker', { kind, name, help, labelNames: LABELS, ...(duration ? { buckets: SECONDS_BUCKETS } : {}) });
  if (!made) return null;
  if (metric.kind === 'counter') return { kind: 'counter', metric: made as Counter };
  if (metric.kind === 'histogram')
    return { kind: 'histogram', metric: made as Histogram, scale: metric.unit === 'ms' || metric.unit === 'milliseconds' ? 1e-3 : 1 };
  return { kind: 'gauge', metric: made as Gauge, add: metric.kind === 'up-down-counter' };
}

export interface CoreCallCounter {
  buffer: MetricsBuffer;
  /** Moves the buffered updates into the process's metrics. */
  drain(): void;
}

export function coreCallCounter(): CoreCallCounter {
  // Drained every second (and at each scrape), it stays far below this.
  const buffer = new MetricsBuffer({ maxBufferSize: 100_000, useSecondsForDurations: true });
  // The SDK reuses its Metric and attribute objects: their folded metric and labels are kept with them.
  const folded = new Map<string, Folded | null>();
  const labelsOf = new WeakMap<MetricTags, Record<string, string>>();
  const labels = (attributes: MetricTags) => {
    let kept = labelsOf.get(attributes);
    if (!kept) {
      kept = {};
      for (const [key, value] of Object.entries(attributes)) if (KEPT.has(key)) kept[key] = String(value);
      labelsOf.set(attributes, kept);
    }
    return kept;
  };
  const failuresShown = new Set<string>();

  return {
    buffer,
    drain() {
      for (const update of buffer.retrieveUpdates()) {
        const { metric, value, attributes } = update;
        const key = `${metric.kind}:${metric.name}`;
        if (!folded.has(key)) folded.set(key, fold(metric));
        const target = folded.get(key);
        const tags = labels(attributes);
        if (target?.kind === 'counter') target.metric.inc(tags, value);
        else if (target?.kind === 'histogram') target.metric.observe(tags, value * target.scale);
        else if (target?.kind === 'gauge') {
          if (target.add) target.metric.inc(tags, value);
          else target.metric.set(tags, value);
        }
        if (metric.kind !== 'counter' || !REQUEST_COUNTER.test(metric.name)) continue;
        const operation = attributes.operation;
        if (typeof operation === 'string') countTemporalCall(operation, value);
        // Failures show as 0 from the first request (or poll) on, not only after the first failure: an alert's rate() needs the series.
        const failureName = `${metric.name}_failure`;
        const seen = `${failureName}:${JSON.stringify(tags)}`;
        if (!failuresShown.has(seen)) {
          failuresShown.add(seen);
          const failures =
            folded.get(`counter:${failureName}`) ??
            fold({ ...metric, name: failureName, description: `Count of failed ${metric.name.replace(/^temporal_/, '')}s by rpc name` });
          folded.set(`counter:${failureName}`, failures);
          if (failures?.kind === 'counter') failures.metric.inc(tags, 0);
        }
      }
    },
  };
}
