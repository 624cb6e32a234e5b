// The worker's /healthz and /readyz (WORKER_HEALTH_ADDR), on real worker
// processes: one whose Temporal is unreachable answers at once, alive and not
// ready (503 naming what it waits for); one on the test's Temporal becomes
// ready once it polls. Its JSON log lines (LOG_FORMAT=json) parse, the SDK's
// included.
import { freePort } from '../../../tools/embedded/ports.js';
import { eventually, type Json } from '../../support/harness.js';
import { processGroup } from '../../support/keyflow-process.js';

const TIMEOUT = 120_000;
const processes = processGroup({ ...process.env, LOG_LEVEL: 'info', LOG_FORMAT: 'json', TEMPORAL_TASK_QUEUE: `worker-health-${Date.now()}` });
afterAll(() => processes.killAll('SIGTERM'));

async function get(base: string, path: string): Promise<{ status: number; headers: Headers; body: Json }> {
  const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(5_000) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
}

it(
  'answers /healthz at once and /readyz 503 while Temporal is unreachable, /readyz 200 once the worker runs',
  async () => {
    const [deadTemporal, stuckPort, readyPort] = await Promise.all([freePort(), freePort(), freePort()]);
    const stuck = `http://127.0.0.1:${stuckPort}`;
    const ready = `http://127.0.0.1:${readyPort}`;
    processes.start('worker', { TEMPORAL_ADDRESS: `127.0.0.1:${deadTemporal}`, WORKER_HEALTH_ADDR: `127.0.0.1:${stuckPort}` });
    const worker = processes.start('worker', { WORKER_HEALTH_ADDR: String(readyPort) });

    // Waiting for Temporal: alive, not ready, and saying which check fails.
    await eventually(async () => expect((await get(stuck, '/readyz')).body.checks).toMatchObject({ mongodb: 'ok' }), 30_000, 200);
    const alive = await get(stuck, '/healthz');
    expect([alive.status, alive.body, alive.headers.get('cache-control')]).toEqual([200, { status: 'ok' }, 'no-store']);
    const notReady = await get(stuck, '/readyz');
    expect(notReady.status).toBe(503);
    expect(notReady.body).toEqual({ status: 'unavailable', checks: { worker: 'starting', mongodb: 'ok', temporal: 'starting' } });
    expect(notReady.headers.get('retry-after')).toBe('5');
    expect(notReady.headers.get('cache-control')).toBe('no-store');
    expect((await get(stuck, '/metrics')).status).toBe(404);

    // On the test's Temporal: ready once the worker runs.
    await eventually(async () => expect((await get(ready, '/readyz')).status).toBe(200), 90_000, 500);
    expect((await get(ready, '/readyz')).body).toEqual({ status: 'ready', checks: { worker: 'ok', mongodb: 'ok', temporal: 'ok' } });
    expect((await get(ready, '/healthz')).status).toBe(200);

    const lines = processes.output(worker).split('\n').filter(Boolean);
    expect(lines.find((l) => l.includes('worker running'))).toBeDefined();
    for (const line of lines)
      expect(JSON.parse(line)).toMatchObject({ time: expect.any(String), level: expect.any(String), process: 'worker', msg: expect.any(String) });
  },
  TIMEOUT,
);
