// The metrics module through its registry's text, as Prometheus reads it: the
// catalogue's metrics registered for their process with the catalogue's type
// and help, request-chosen values never becoming label values, and the
// bench's parsing of the four cost metrics.
import { METRICS, type MetricName } from '../../../lib/model/metric-catalogue.js';
import {
  countAuditEvent,
  countMongoCommand,
  countTemporalCall,
  countTokenRequest,
  metricsRegistry,
  observeHttpRequest,
  TOKEN_GRANT_TYPES,
} from '../../../lib/runtime/metrics.js';
import { GRANT_HANDLERS } from '../../../api/protocol/token/endpoint.js';
import { parseProcessCounters } from '../../../tools/bench/costs.js';
import { parseMetrics, total } from '../../support/prometheus.js';

const registry = metricsRegistry('api');
const scrape = async () => parseMetrics(await registry.metrics());
const labelsOf = (metrics: ReturnType<typeof parseMetrics>, name: string) => metrics.samples(name).map((s) => s.labels);

describe('the api registry', () => {
  it('holds the catalogue metrics of the api with their type and help, and no worker-only one', async () => {
    const metrics = await scrape();
    for (const [name, spec] of Object.entries(METRICS) as Array<[MetricName, (typeof METRICS)[MetricName]]>) {
      if (spec.process === 'worker') expect(metrics.types.get(name)).toBeUndefined();
      else expect([name, metrics.types.get(name), metrics.help.get(name)]).toEqual([name, spec.type.toUpperCase(), spec.help]);
    }
    // prom-client's process metrics, the bench's CPU counter among them.
    expect(metrics.types.get('process_cpu_seconds_total')).toBe('COUNTER');
    expect(metrics.types.get('nodejs_heap_size_used_bytes')).toBe('GAUGE');
  });
});

describe('observeHttpRequest', () => {
  const HISTOGRAM = 'http_server_request_duration_seconds';
  const token = { method: 'POST', route: '/api/oauth/token' };

  it('observes the latency by method, route template and status class, and counts a 429 as rate limited', async () => {
    observeHttpRequest('post', '/api/oauth/token', 200, 0.012);
    observeHttpRequest('POST', '/api/oauth/token', 429, 0.001);
    const metrics = await scrape();
    expect(total(metrics, `${HISTOGRAM}_count`, { ...token, status_class: '2xx' })).toBe(1);
    expect(total(metrics, `${HISTOGRAM}_sum`, { ...token, status_class: '2xx' })).toBe(0.012);
    expect(total(metrics, `${HISTOGRAM}_bucket`, { ...token, status_class: '2xx', le: '0.025' })).toBe(1);
    expect(total(metrics, `${HISTOGRAM}_bucket`, { ...token, status_class: '2xx', le: '0.01' })).toBe(0);
    expect(total(metrics, `${HISTOGRAM}_count`, { ...token, status_class: '4xx' })).toBe(1);
    expect(metrics.samples('keyflow_rate_limited_total')).toEqual([{ labels: { route: '/api/oauth/token' }, value: 1 }]);
  });

  it('takes no raw path, query, odd method or status as a label value', async () => {
    observeHttpRequest('BREW', '/api/oauth/token?code=abc123&client_secret=s3cret', 999, Number.NaN);
    observeHttpRequest('GET', 'https://rp.example/cb', 200, -1);
    const labels = labelsOf(await scrape(), `${HISTOGRAM}_count`);
    expect(labels).toContainEqual({ method: 'other', route: 'other', status_class: 'other' });
    expect(labels).toContainEqual({ method: 'GET', route: 'other', status_class: '2xx' });
    expect(JSON.stringify(labels)).not.toMatch(/abc123|s3cret|rp\.example/);
  });
});

describe('countTokenRequest', () => {
  it('labels the known grant types and outcomes; anything else is other', async () => {
    countTokenRequest('authorization_code', 'issued');
    countTokenRequest('password', 'invalid_grant');
    countTokenRequest('refresh_token', 'eyJhbGciOi.not-an-outcome');
    const labels = labelsOf(await scrape(), 'keyflow_token_requests_total');
    expect(labels).toEqual(
      expect.arrayContaining([
        { grant_type: 'authorization_code', outcome: 'issued' },
        { grant_type: 'other', outcome: 'invalid_grant' },
        { grant_type: 'refresh_token', outcome: 'other' },
      ]),
    );
    expect(JSON.stringify(labels)).not.toMatch(/password|eyJ/);
  });

  it('knows every grant type the token endpoint serves', () => {
    expect([...TOKEN_GRANT_TYPES].sort()).toEqual(Object.keys(GRANT_HANDLERS).sort());
  });
});

describe('countAuditEvent', () => {
  it('counts the event and derives sign-ins and refresh token reuse', async () => {
    countAuditEvent('login', 'success');
    countAuditEvent('login.failed', 'failure');
    countAuditEvent('refresh.reuse_detected', 'failure');
    const metrics = await scrape();
    expect(labelsOf(metrics, 'keyflow_audit_events_total')).toEqual(
      expect.arrayContaining([
        { event: 'login', outcome: 'success' },
        { event: 'login.failed', outcome: 'failure' },
      ]),
    );
    expect(total(metrics, 'keyflow_sign_ins_total', { outcome: 'success' })).toBe(1);
    expect(total(metrics, 'keyflow_sign_ins_total', { outcome: 'failure' })).toBe(1);
    expect(total(metrics, 'keyflow_refresh_reuse_detected_total')).toBe(1);
  });
});

describe("the bench's cost metrics", () => {
  it('keep the names and labels tools/bench parses', async () => {
    countMongoCommand('find');
    countMongoCommand('find');
    countTemporalCall('StartWorkflowExecution', 3);
    const counters = parseProcessCounters(await registry.metrics());
    expect(counters.mongodb).toEqual({ find: 2 });
    expect(counters.temporal).toEqual({ StartWorkflowExecution: 3 });
    expect(counters.cpuSeconds).toBeGreaterThan(0);
    expect(counters.loopDelayP99Seconds).toEqual(expect.any(Number));
  });
});
