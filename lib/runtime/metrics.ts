// What each process exposes on /metrics, with prom-client: the catalogue's
// metrics (lib/model/metric-catalogue.ts: names, help, labels and buckets come
// from there and nowhere else), prom-client's process and Node.js metrics, and
// the libraries' own (the worker's Temporal SDK, worker/core-calls.ts). The
// metric objects are process-wide so that the store, the Temporal connection,
// the audit trail and the endpoints count without being handed a registry;
// one Registry per process serves those of its process (api or worker). They
// are served on a listener of their own, never on the public api port.
//
// Every label value comes from a small fixed set (route templates, grant
// types, outcomes, command names): the functions below map anything else to
// 'other', so no id, user, secret or address can become a series.
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';
import type { MetricsAddress } from '../config/env.js';
import { METRICS, type MetricName, type MetricSpec } from '../model/metric-catalogue.js';
import { currentTimeMs } from './clock.js';
import type { Logger } from './log.js';

export type MetricsProcess = 'api' | 'worker';

type Spec<N extends MetricName> = (typeof METRICS)[N];
type LabelOf<N extends MetricName> = Spec<N>['labels'][number];
type NamesOf<T> = { [N in MetricName]: Spec<N>['type'] extends T ? N : never }[MetricName];

function counter<N extends NamesOf<'counter'>>(name: N): Counter<LabelOf<N>> {
  const spec: MetricSpec = METRICS[name];
  return new Counter({ name, help: spec.help, labelNames: spec.labels as LabelOf<N>[], registers: [] });
}

function histogram<N extends NamesOf<'histogram'>>(name: N): Histogram<LabelOf<N>> {
  const spec: MetricSpec = METRICS[name];
  return new Histogram({ name, help: spec.help, labelNames: spec.labels as LabelOf<N>[], buckets: [...(spec.buckets ?? [])], registers: [] });
}

function gauge<N extends NamesOf<'gauge'>>(name: N, collect?: (this: Gauge<LabelOf<N>>) => void | Promise<void>): Gauge<LabelOf<N>> {
  const spec: MetricSpec = METRICS[name];
  return new Gauge({ name, help: spec.help, labelNames: spec.labels as LabelOf<N>[], registers: [], ...(collect ? { collect } : {}) });
}

// Event loop delay since the previous scrape: read and reset by each scrape's collect().
const LOOP_DELAY_RESOLUTION_MS = 10;
let loopDelay: ReturnType<typeof monitorEventLoopDelay> | undefined;

/** Where the signing key ages come from (the api's keyring); unset in the worker. */
let signingKeys: (() => Promise<Array<{ alg: string; createdAt: Date }>>) | undefined;

const catalogue = {
  http_server_request_duration_seconds: histogram('http_server_request_duration_seconds'),
  keyflow_token_requests_total: counter('keyflow_token_requests_total'),
  keyflow_sign_ins_total: counter('keyflow_sign_ins_total'),
  keyflow_refresh_reuse_detected_total: counter('keyflow_refresh_reuse_detected_total'),
  keyflow_audit_events_total: counter('keyflow_audit_events_total'),
  keyflow_rate_limited_total: counter('keyflow_rate_limited_total'),
  keyflow_unavailable_total: counter('keyflow_unavailable_total'),
  keyflow_deliveries_total: counter('keyflow_deliveries_total'),
  keyflow_delivery_lag_seconds: histogram('keyflow_delivery_lag_seconds'),
  keyflow_dependency_timeouts_total: counter('keyflow_dependency_timeouts_total'),
  keyflow_signing_key_age_seconds: gauge('keyflow_signing_key_age_seconds', async function () {
    this.reset();
    if (!signingKeys) return;
    try {
      const now = currentTimeMs();
      for (const key of await signingKeys()) this.set({ alg: key.alg }, Math.max(0, (now - key.createdAt.getTime()) / 1000));
    } catch {
      // MongoDB unreachable at scrape time: no value rather than a failed scrape (the dependency metrics say why).
    }
  }),
  mongodb_commands_total: counter('mongodb_commands_total'),
  temporal_calls_total: counter('temporal_calls_total'),
  nodejs_eventloop_delay_p99_seconds: gauge('nodejs_eventloop_delay_p99_seconds', function () {
    if (!loopDelay) return;
    // Node records the whole interval between two samples (resolution + delay): the delay is what exceeds it.
    // An empty histogram (no sample yet) reports its maximum int64; say 0 instead.
    const p99 = loopDelay.count > 0 ? Math.max(0, loopDelay.percentile(99) / 1e9 - LOOP_DELAY_RESOLUTION_MS / 1000) : 0;
    loopDelay.reset();
    this.set(p99);
  }),
} satisfies { [N in MetricName]: Metric<LabelOf<N>> };

let registry: Registry | undefined;

/**
 * The process's registry, made on first call with prom-client's default
 * metrics (its process_cpu_seconds_total counts from then on: a bench reads
 * differences), holding the catalogue's metrics of `kind` (both kinds' when a
 * test runs an api and a worker in one process).
 */
export function metricsRegistry(kind: MetricsProcess): Registry {
  if (!registry) {
    registry = new Registry();
    collectDefaultMetrics({ register: registry });
    loopDelay = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
    loopDelay.enable();
  }
  for (const [name, metric] of Object.entries(catalogue) as Array<[MetricName, Metric]>) {
    const spec: MetricSpec = METRICS[name];
    if ((spec.process === kind || spec.process === 'both') && !registry.getSingleMetric(name)) registry.registerMetric(metric);
  }
  return registry;
}

/** Anything outside `allowed` is 'other': a label never takes a value a request chose. */
const bounded = (value: string, allowed: ReadonlySet<string>) => (allowed.has(value) ? value : 'other');

/** One MongoDB command sent (an attempt: a retried command counts twice). */
export function countMongoCommand(command: string): void {
  catalogue.mongodb_commands_total.inc({ command });
}

/** `n` Temporal calls of `method` (gRPC method name, e.g. StartWorkflowExecution). */
export function countTemporalCall(method: string, n = 1): void {
  catalogue.temporal_calls_total.inc({ method }, n);
}

const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** A route template: a path of names and parameters (`/api/users/:id`), never a raw URL with a query. */
const ROUTE_TEMPLATE = /^\/[A-Za-z0-9_\-./:*]{0,120}$/;
/** Distinct routes kept before others become 'other': a miswired caller passing raw paths cannot grow the series without bound. */
const MAX_ROUTES = 300;
const routes = new Set<string>();

/** What the request observer names a request no route answered. */
const UNMATCHED = 'unmatched';

function boundedRoute(route: string): string {
  if (routes.has(route) || route === UNMATCHED) return route;
  if (!ROUTE_TEMPLATE.test(route) || routes.size >= MAX_ROUTES) return 'other';
  routes.add(route);
  return route;
}

/**
 * One HTTP request answered: `route` is the route template that matched (or
 * a fixed name such as 'unmatched'), `seconds` from arrival to the response.
 * A 429 also counts as rate limited.
 */
export function observeHttpRequest(method: string, route: string, status: number, seconds: number): void {
  const statusClass = Number.isInteger(status) && status >= 100 && status <= 599 ? `${Math.floor(status / 100)}xx` : 'other';
  const routeLabel = boundedRoute(route);
  const elapsed = Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
  catalogue.http_server_request_duration_seconds.observe(
    { method: bounded(method.toUpperCase(), HTTP_METHODS), route: routeLabel, status_class: statusClass },
    elapsed,
  );
  if (status === 429) catalogue.keyflow_rate_limited_total.inc({ route: routeLabel });
}

/** The grant types the token endpoint serves (api/protocol/token/endpoint.ts; a unit test keeps them in step). */
export const TOKEN_GRANT_TYPES: ReadonlySet<string> = new Set([
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'urn:ietf:params:oauth:grant-type:device_code',
  'urn:ietf:params:oauth:grant-type:token-exchange',
]);

/** 'issued', or an error code the token endpoint answers (RFC 6749 §5.2, RFC 8628 §3.5, RFC 8693, RFC 8707, RFC 9449). */
const TOKEN_OUTCOMES: ReadonlySet<string> = new Set([
  'issued',
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_target',
  'invalid_dpop_proof',
  'use_dpop_nonce',
  'authorization_pending',
  'slow_down',
  'access_denied',
  'expired_token',
  'server_error',
  'temporarily_unavailable',
]);

/** One token request answered: `outcome` is 'issued' or the OAuth error code sent. */
export function countTokenRequest(grantType: string, outcome: string): void {
  catalogue.keyflow_token_requests_total.inc({ grant_type: bounded(grantType, TOKEN_GRANT_TYPES), outcome: bounded(outcome, TOKEN_OUTCOMES) });
}

const AUDIT_OUTCOMES: ReadonlySet<string> = new Set(['success', 'failure']);

/**
 * One audit event (recorded or not: AUDIT_TRAIL=off still counts), and the
 * counters derived from it: sign-ins and refresh token reuse. Called by the
 * audit trail only, with event names from its catalogue.
 */
export function countAuditEvent(event: string, outcome: string): void {
  catalogue.keyflow_audit_events_total.inc({ event, outcome: bounded(outcome, AUDIT_OUTCOMES) });
  if (event === 'login') catalogue.keyflow_sign_ins_total.inc({ outcome: 'success' });
  else if (event === 'login.failed') catalogue.keyflow_sign_ins_total.inc({ outcome: 'failure' });
  else if (event === 'refresh.reuse_detected') catalogue.keyflow_refresh_reuse_detected_total.inc();
}

/** A request answered 503: a dependency failed, or the api is still starting. */
export function countUnavailable(cause: 'mongodb' | 'temporal' | 'starting'): void {
  catalogue.keyflow_unavailable_total.inc({ cause });
}

/** A call to MongoDB or Temporal that failed as unreachable or too slow. */
export function countDependencyTimeout(dependency: 'mongodb' | 'temporal'): void {
  catalogue.keyflow_dependency_timeouts_total.inc({ dependency });
}

export type DeliveryKind = 'webhook' | 'backchannel_logout';

/**
 * One outbound delivery attempt's end: delivered (2xx), failed (another
 * status, a timeout, an unreachable receiver) or gave_up (the attempt was
 * lost and is not retried). `lagSeconds`, for a delivered one: from the
 * event to now.
 */
export function countDelivery(kind: DeliveryKind, outcome: 'delivered' | 'failed' | 'gave_up', lagSeconds?: number): void {
  catalogue.keyflow_deliveries_total.inc({ kind, outcome });
  if (outcome === 'delivered' && lagSeconds !== undefined && Number.isFinite(lagSeconds))
    catalogue.keyflow_delivery_lag_seconds.observe({ kind }, Math.max(0, lagSeconds));
}

/**
 * The api's signing keys, read at scrape time for keyflow_signing_key_age_seconds:
 * `source` lists the key of each algorithm that signs new tokens now (from the
 * keyring's cache, never on a request's path).
 */
export function watchSigningKeys(source: () => Promise<Array<{ alg: string; createdAt: Date }>>): void {
  signingKeys = source;
}

export type LibraryMetricKind = 'counter' | 'gauge' | 'histogram';
const libraryMetrics = new Map<string, { kind: LibraryMetricKind; metric: Counter | Gauge | Histogram }>();

/**
 * A library's metric (the Temporal SDK's, folded in by worker/core-calls.ts),
 * made on first use and registered in the process's registry. `name` must
 * carry one of the catalogue's library prefixes and not be a catalogue name;
 * null when it clashes with a metric of another kind or name.
 */
export function libraryMetric(
  kind: MetricsProcess,
  spec: { kind: LibraryMetricKind; name: string; help: string; labelNames: readonly string[]; buckets?: readonly number[] },
): Counter | Gauge | Histogram | null {
  const known = libraryMetrics.get(spec.name);
  if (known) return known.kind === spec.kind ? known.metric : null;
  const target = metricsRegistry(kind);
  if (Object.hasOwn(METRICS, spec.name) || target.getSingleMetric(spec.name)) return null;
  const config = { name: spec.name, help: spec.help, labelNames: [...spec.labelNames], registers: [target] };
  const metric =
    spec.kind === 'counter'
      ? new Counter(config)
      : spec.kind === 'gauge'
        ? new Gauge(config)
        : new Histogram({ ...config, ...(spec.buckets ? { buckets: [...spec.buckets] } : {}) });
  libraryMetrics.set(spec.name, { kind: spec.kind, metric });
  return metric;
}

export interface MetricsListener {
  url: string;
  close(): Promise<void>;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/**
 * Serves GET /metrics of the process's registry on `address`. `beforeScrape`
 * lets a process fold in counts gathered elsewhere (the worker's native
 * Temporal connection) first.
 */
export async function startMetricsListener(
  address: MetricsAddress,
  log: Logger,
  options: { process: MetricsProcess; beforeScrape?: () => void },
): Promise<MetricsListener> {
  const target = metricsRegistry(options.process);
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    void (async () => {
      try {
        options.beforeScrape?.();
        const text = await target.metrics();
        res.writeHead(200, { 'content-type': target.contentType, 'cache-control': 'no-store' }).end(text);
      } catch (err) {
        log.warn('metrics scrape failed', { error: (err as Error).message });
        if (!res.headersSent) res.writeHead(503, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      }
    })();
  });
  await new Promise<void>((resolve, reject) => server.listen(address.port, address.host, resolve).once('error', reject));
  // The metrics tell traffic volumes; outside loopback whoever reaches the port reads them.
  if (!LOOPBACK.test(address.host)) log.warn('metrics listener is not on loopback: keep its port behind a firewall', { host: address.host });
  const bound = server.address();
  const port = typeof bound === 'object' && bound ? bound.port : address.port;
  return {
    url: `http://${address.host.includes(':') ? `[${address.host}]` : address.host}:${port}/metrics`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
