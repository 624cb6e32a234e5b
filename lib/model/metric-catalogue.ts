// Every metric Keyflow's processes expose on /metrics, in one list: its name,
// type, labels and meaning. The metrics module registers exactly these (and
// the process and Temporal SDK metrics the libraries bring), the Grafana
// dashboard and the Prometheus alert rules under deploy/ may use only these
// (a test checks), and docs/observability.md lists them. Labels take values
// from small fixed sets (route templates, grant types, outcomes, command
// names): never an id, a user, an address or anything a request chose freely.
export type MetricType = 'counter' | 'gauge' | 'histogram';

export interface MetricSpec {
  type: MetricType;
  help: string;
  labels: readonly string[];
  /** Which process exposes it. */
  process: 'api' | 'worker' | 'both';
  /** Histogram bucket bounds, in the metric's unit (seconds). */
  buckets?: readonly number[];
}

/** Request latencies: from a cached read (~1 ms) to a password hash or a slow dependency (seconds). */
const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;
/** Delivery lag: a delivery on its first attempt (ms) to one after hours of retries. */
const LAG_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 86400] as const;

export const METRICS = {
  http_server_request_duration_seconds: {
    type: 'histogram',
    help: 'HTTP requests the api answered, by method, route template and status class (2xx, 3xx, 4xx, 5xx): count and latency.',
    labels: ['method', 'route', 'status_class'],
    process: 'api',
    buckets: LATENCY_BUCKETS,
  },
  keyflow_token_requests_total: {
    type: 'counter',
    help: 'Token endpoint requests by grant type and outcome (issued, or the OAuth error code answered).',
    labels: ['grant_type', 'outcome'],
    process: 'api',
  },
  keyflow_sign_ins_total: {
    type: 'counter',
    help: 'Sign-ins by outcome (success, failure), from the audit events login and login.failed.',
    labels: ['outcome'],
    process: 'api',
  },
  keyflow_refresh_reuse_detected_total: {
    type: 'counter',
    help: 'Refresh tokens presented again after rotation (the grant is revoked): a stolen token, or a client that lost an answer.',
    labels: [],
    process: 'both',
  },
  keyflow_audit_events_total: {
    type: 'counter',
    help: 'Security events recorded in the audit trail, by event name and outcome (counted even when AUDIT_TRAIL=off).',
    labels: ['event', 'outcome'],
    process: 'both',
  },
  keyflow_rate_limited_total: {
    type: 'counter',
    help: 'Requests refused by a rate limit (429), by route template.',
    labels: ['route'],
    process: 'api',
  },
  keyflow_unavailable_total: {
    type: 'counter',
    help: 'Requests answered 503 because a dependency failed or the api is starting, by cause (mongodb, temporal, starting).',
    labels: ['cause'],
    process: 'api',
  },
  keyflow_deliveries_total: {
    type: 'counter',
    help: 'Outbound delivery attempts (webhooks, back-channel logout) by kind and outcome (delivered, failed, gave_up).',
    labels: ['kind', 'outcome'],
    process: 'worker',
  },
  keyflow_delivery_lag_seconds: {
    type: 'histogram',
    help: 'Time from the event to its successful delivery, by kind (webhook, backchannel_logout): retries included.',
    labels: ['kind'],
    process: 'worker',
    buckets: LAG_BUCKETS,
  },
  keyflow_dependency_timeouts_total: {
    type: 'counter',
    help: 'Calls to MongoDB or Temporal that failed as unreachable or too slow, by dependency.',
    labels: ['dependency'],
    process: 'both',
  },
  keyflow_signing_key_age_seconds: {
    type: 'gauge',
    help: 'Age of each signing key in use for new tokens, by algorithm (the oldest if several).',
    labels: ['alg'],
    process: 'api',
  },
  mongodb_commands_total: {
    type: 'counter',
    help: 'MongoDB commands sent, by command name (an attempt: a retried command counts twice).',
    labels: ['command'],
    process: 'both',
  },
  temporal_calls_total: {
    type: 'counter',
    help: 'Temporal gRPC calls made, by method (the worker counts its native connection too).',
    labels: ['method'],
    process: 'both',
  },
  nodejs_eventloop_delay_p99_seconds: {
    type: 'gauge',
    help: '99th percentile of event loop delay since the previous scrape.',
    labels: [],
    process: 'both',
  },
} as const satisfies Record<string, MetricSpec>;

export type MetricName = keyof typeof METRICS;

/** Prefixes of metrics the libraries add: prom-client's process and Node.js metrics, the Temporal SDK's (worker). */
export const LIBRARY_METRIC_PREFIXES = ['process_', 'nodejs_', 'temporal_'] as const;
