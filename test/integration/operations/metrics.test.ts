// The metrics: an api and a worker started as real processes with
// METRICS_ADDR / WORKER_METRICS_ADDR serve /metrics on their own loopback
// listeners. A request that reads MongoDB and asks Temporal moves the api's
// cost counters, and the worker counts the polls of its native connection; a
// code flow, a refused sign-in, a bad code and a webhook delivery move the
// product's counters; the Temporal SDK's worker metrics show; no label value
// is a secret, token, code, email or address the test used.
import { parseConfig } from '../../../lib/config/env.js';
import { s256Challenge } from '../../../lib/model/pkce.js';
import { loadKek } from '../../../lib/security/kek.js';
import { newSecret } from '../../../lib/security/secrets.js';
import type { Store } from '../../../lib/store/db.js';
import { createPersonalAccessToken } from '../../../lib/store/personal-access-tokens.js';
import { freePort } from '../../../tools/embedded/ports.js';
import { parseProcessCounters } from '../../../tools/bench/costs.js';
import { newRp } from '../../../tools/fixtures/clients.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { openTestStore } from '../../support/database.js';
import { deployQueries } from '../../support/deploy-queries.js';
import { promqlReferences } from '../../support/promql.js';
import { eventually, testConfig } from '../../support/harness.js';
import { postForm } from '../../support/http.js';
import { processGroup, type ProcessGroup, untilReady, workerPolling } from '../../support/keyflow-process.js';
import { parseMetrics, total } from '../../support/prometheus.js';
import { authorizeAs } from '../../support/token-flow.js';
import { addHook, startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';

const TIMEOUT = 120_000;
const taskQueue = `metrics-${Date.now()}`;

let processes: ProcessGroup;
let base: string;
let apiMetrics: string;
let workerMetrics: string;

/** The value of `name{label="value"}` (or unlabelled `name`) in a Prometheus text, 0 when absent. */
function sample(text: string, name: string, label?: [string, string]): number {
  const selector = label ? `${name}{${label[0]}="${label[1]}"}` : name;
  const line = text.split('\n').find((l) => l.startsWith(`${selector} `));
  return line ? Number(line.slice(selector.length + 1)) : 0;
}

const scrape = async (url: string) => {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
};

beforeAll(async () => {
  const [port, apiPort, workerPort] = await Promise.all([freePort(), freePort(), freePort()]);
  base = `http://127.0.0.1:${port}`;
  apiMetrics = `http://127.0.0.1:${apiPort}/metrics`;
  workerMetrics = `http://127.0.0.1:${workerPort}/metrics`;
  processes = processGroup({
    ...process.env,
    PORT: String(port),
    ISSUER: base,
    TEMPORAL_TASK_QUEUE: taskQueue,
    // A bare port binds loopback.
    METRICS_ADDR: String(apiPort),
    WORKER_METRICS_ADDR: `127.0.0.1:${workerPort}`,
  });
  processes.start('worker');
  processes.start('api');
  await untilReady(base);
}, TIMEOUT);

let store: Store | undefined;
let receiver: WebhookReceiver | undefined;

afterAll(async () => {
  await processes?.killAll();
  await receiver?.close();
  await store?.close();
});

describe('metrics', () => {
  it('counts the MongoDB commands and Temporal calls of a request, and the api CPU', async () => {
    const before = await scrape(apiMetrics);
    // Readiness pings MongoDB and asks Temporal's health service; an unknown client is looked up.
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const token = await fetch(`${base}/api/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('no-such-client:secret').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'no-such-code', redirect_uri: 'https://rp.example/cb' }),
    });
    expect(token.status).toBe(401);
    const after = await scrape(apiMetrics);

    expect(sample(after, 'mongodb_commands_total', ['command', 'ping'])).toBeGreaterThan(sample(before, 'mongodb_commands_total', ['command', 'ping']));
    expect(sample(after, 'mongodb_commands_total', ['command', 'find'])).toBeGreaterThan(sample(before, 'mongodb_commands_total', ['command', 'find']));
    expect(sample(after, 'temporal_calls_total', ['method', 'Check'])).toBeGreaterThan(sample(before, 'temporal_calls_total', ['method', 'Check']));
    expect(sample(after, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(after).toMatch(/^nodejs_eventloop_delay_p99_seconds \d/m);
  });

  it("counts the worker's polls made by its native connection", async () => {
    await workerPolling(taskQueue);
    await eventually(
      async () => expect(sample(await scrape(workerMetrics), 'temporal_calls_total', ['method', 'PollWorkflowTaskQueue'])).toBeGreaterThan(0),
      20_000,
      500,
    );
  });

  it("counts a code flow's sign-ins, token outcomes, audit events and webhook delivery, with no secret in a label", async () => {
    store = openTestStore();
    receiver = await startWebhookReceiver();
    const cfg = testConfig();
    const password = 'metrics test password';
    const redirectUri = 'https://metrics-rp.example/cb';
    const rp = await newRp({ store }, { name: 'Metrics RP', redirectUris: [{ type: 'equals', value: redirectUri }], allowedScopes: ['openid'] });
    const { email, user } = await newUser({ store }, { prefix: 'metrics', password });
    const verifier = newSecret();
    const authorize = `${base}/api/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: rp.id,
      redirect_uri: redirectUri,
      scope: 'openid',
      code_challenge: s256Challenge(verifier),
      code_challenge_method: 'S256',
    })}`;

    // A refused sign-in, then the flow: a sign-in, a code, tokens; then a code that does not exist.
    const refused = new HttpUser(base);
    await refused.signIn(await refused.get(authorize), email, 'not the password');
    const back = await authorizeAs(new HttpUser(base), authorize, email, password);
    const code = back.searchParams.get('code')!;
    const tokens = await postForm(
      base,
      '/api/oauth/token',
      { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier },
      rp.headers,
    );
    expect(tokens.res.status).toBe(200);
    const badCode = await postForm(
      base,
      '/api/oauth/token',
      { grant_type: 'authorization_code', code: 'kfc1.no-such-code', redirect_uri: redirectUri, code_verifier: verifier },
      rp.headers,
    );
    expect(badCode.body.error).toBe('invalid_grant');

    // A profile change: one webhook delivery by the metrics worker.
    await addHook({ store, kek: loadKek(cfg.kek, cfg.dataDir) }, receiver, '/metrics-hook', { events: ['profile.updated'], ownerUserId: user._id });
    const { token: pat } = await createPersonalAccessToken(store, user._id, { name: 'metrics', scope: ['profile:write'], expiresInDays: 1 });
    const patched = await fetch(`${base}/api/oauth/me/profile`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${pat}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Metrics Person' }),
    });
    expect(patched.status).toBe(200);
    await eventually(async () => expect(receiver!.at('/metrics-hook')).toHaveLength(1), 20_000, 200);

    const api = parseMetrics(await scrape(apiMetrics));
    let worker = parseMetrics(await scrape(workerMetrics));
    await eventually(
      async () => {
        worker = parseMetrics(await scrape(workerMetrics));
        expect(total(worker, 'keyflow_deliveries_total', { kind: 'webhook', outcome: 'delivered' })).toBeGreaterThanOrEqual(1);
      },
      10_000,
      250,
    );

    // The api: token outcomes, sign-ins, audit events, key ages.
    expect(total(api, 'keyflow_token_requests_total', { grant_type: 'authorization_code', outcome: 'issued' })).toBeGreaterThanOrEqual(1);
    expect(total(api, 'keyflow_token_requests_total', { grant_type: 'authorization_code', outcome: 'invalid_grant' })).toBeGreaterThanOrEqual(1);
    expect(total(api, 'keyflow_sign_ins_total', { outcome: 'success' })).toBeGreaterThanOrEqual(1);
    expect(total(api, 'keyflow_sign_ins_total', { outcome: 'failure' })).toBeGreaterThanOrEqual(1);
    expect(total(api, 'keyflow_audit_events_total', { event: 'login', outcome: 'success' })).toBeGreaterThanOrEqual(1);
    expect(total(api, 'keyflow_audit_events_total', { event: 'login.failed', outcome: 'failure' })).toBeGreaterThanOrEqual(1);
    const keyAges = api.samples('keyflow_signing_key_age_seconds');
    expect(keyAges.map((s) => s.labels.alg)).toContain('RS256');
    expect(keyAges.every((s) => s.value >= 0)).toBe(true);
    // Every request answered, by route template and status class.
    expect(api.types.get('http_server_request_duration_seconds')).toBe('HISTOGRAM');
    expect(total(api, 'http_server_request_duration_seconds_count', { method: 'POST', route: '/api/oauth/token', status_class: '2xx' })).toBeGreaterThanOrEqual(
      1,
    );
    expect(total(api, 'http_server_request_duration_seconds_count', { method: 'POST', route: '/api/oauth/token', status_class: '4xx' })).toBeGreaterThanOrEqual(
      1,
    );
    expect(
      total(api, 'http_server_request_duration_seconds_count', { method: 'GET', route: '/api/oauth/authorize', status_class: '3xx' }),
    ).toBeGreaterThanOrEqual(1);

    // The worker: the delivery and its lag, the Temporal SDK's task slots, schedule-to-start latencies and poll failures.
    expect(total(worker, 'keyflow_delivery_lag_seconds_count', { kind: 'webhook' })).toBeGreaterThanOrEqual(1);
    expect(worker.types.get('temporal_worker_task_slots_available')).toBe('GAUGE');
    expect(worker.samples('temporal_worker_task_slots_available').map((s) => s.labels.worker_type)).toContain('ActivityWorker');
    expect(worker.types.get('temporal_worker_task_slots_used')).toBe('GAUGE');
    expect(total(worker, 'temporal_workflow_task_schedule_to_start_latency_seconds_count', { task_queue: taskQueue })).toBeGreaterThanOrEqual(1);
    expect(total(worker, 'temporal_activity_schedule_to_start_latency_seconds_count', { task_queue: taskQueue })).toBeGreaterThanOrEqual(1);
    expect(worker.samples('temporal_long_request_failure_total').map((s) => s.labels.operation)).toContain('PollWorkflowTaskQueue');

    // The bench's four metrics, under their old names, on both.
    for (const metrics of [api, worker]) {
      expect(metrics.types.get('mongodb_commands_total')).toBe('COUNTER');
      expect(metrics.types.get('temporal_calls_total')).toBe('COUNTER');
      expect(metrics.types.get('process_cpu_seconds_total')).toBe('COUNTER');
      expect(metrics.types.get('nodejs_eventloop_delay_p99_seconds')).toBe('GAUGE');
    }
    const apiCosts = parseProcessCounters(await scrape(apiMetrics));
    const workerCosts = parseProcessCounters(await scrape(workerMetrics));
    expect([apiCosts.mongodb.find, apiCosts.cpuSeconds, workerCosts.temporal.PollWorkflowTaskQueue, workerCosts.cpuSeconds]).toEqual([
      expect.any(Number),
      expect.any(Number),
      expect.any(Number),
      expect.any(Number),
    ]);

    // No label value is anything the test sent or got.
    const delivery = receiver.at('/metrics-hook')[0]!;
    const sensitive = [
      rp.secret!,
      rp.id,
      code,
      'kfc1.no-such-code',
      verifier,
      tokens.body.access_token,
      tokens.body.id_token,
      pat,
      receiver.secrets.get('/metrics-hook')!,
      String(delivery.headers['x-keyflow-delivery']),
      email,
      password,
      user._id,
      '127.0.0.1',
    ];
    const values = [...api.labelValues(), ...worker.labelValues()];
    for (const secret of sensitive) expect(values.filter((v) => v.includes(secret))).toEqual([]);
  });

  it('serves every metric the alert rules and the dashboard under deploy/ read', async () => {
    // By the names the processes declare (# TYPE): a labelled series exists only once counted, its family from the start.
    const declared = new Set(
      [await scrape(apiMetrics), await scrape(workerMetrics)].flatMap((text) => [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!)),
    );
    const used = new Set(deployQueries().flatMap((expr) => promqlReferences(expr).metrics.map((m) => m.name.replace(/_(bucket|sum|count)$/, ''))));
    used.delete('up'); // Prometheus's own
    expect([...used].filter((name) => !declared.has(name)).sort()).toEqual([]);
  });

  it('serves /metrics only on its own listener', async () => {
    expect((await fetch(`${base}/metrics`)).status).toBe(404);
    expect((await fetch(apiMetrics.replace(/\/metrics$/, '/'))).status).toBe(404);
  });
});

describe('METRICS_ADDR', () => {
  it.each([
    ['9464', { host: '127.0.0.1', port: 9464 }],
    ['0.0.0.0:9464', { host: '0.0.0.0', port: 9464 }],
    ['[::1]:9464', { host: '::1', port: 9464 }],
  ])('%s is where /metrics is served', (value, address) => {
    const result = parseConfig({ METRICS_ADDR: value, WORKER_METRICS_ADDR: value });
    expect(result.ok && result.config.metrics).toEqual({ api: address, worker: address });
  });

  it('is off by default and refuses what is not an address', () => {
    const off = parseConfig({});
    expect(off.ok && off.config.metrics).toEqual({ api: null, worker: null });
    const bad = parseConfig({ METRICS_ADDR: 'http://127.0.0.1:9464', WORKER_METRICS_ADDR: '127.0.0.1:70000' });
    expect(bad.ok ? [] : bad.errors).toEqual([
      expect.stringMatching(/^METRICS_ADDR: must be a port/),
      expect.stringMatching(/^WORKER_METRICS_ADDR: must be a port/),
    ]);
  });
});
