// The cost counters count: an api and a worker started as real processes with
// METRICS_ADDR / WORKER_METRICS_ADDR serve /metrics on their own loopback
// listeners, a request that reads MongoDB and asks Temporal moves the api's
// counters, and the worker counts the polls of its native connection.
import { parseConfig } from '../../../lib/config/env.js';
import { freePort } from '../../../tools/embedded/ports.js';
import { eventually } from '../../support/harness.js';
import { processGroup, type ProcessGroup, untilReady, workerPolling } from '../../support/keyflow-process.js';

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

afterAll(() => processes?.killAll());

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
