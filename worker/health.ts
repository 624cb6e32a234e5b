// The worker's /healthz and /readyz (WORKER_HEALTH_ADDR), for docker-compose
// and Kubernetes probes, on a listener of its own: the worker serves no HTTP
// otherwise. It listens before the worker connects to anything, so a probe
// sees a starting worker (alive, not ready) rather than a refused connection.
// /readyz is 200 when the Temporal worker runs, MongoDB answers a ping and the
// worker's own Temporal connection answers a health check; else 503 naming the
// check that failed. What is not there yet reads `starting`.
import http from 'node:http';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { MetricsAddress } from '../lib/config/env.js';
import { realTimeMs } from '../lib/runtime/clock.js';
import type { Logger } from '../lib/runtime/log.js';
import { pingStore, type Store } from '../lib/store/db.js';
import { HEALTH_CHECK_TIMEOUT_MS, probe } from '../lib/runtime/health-probe.js';
import { RETRY_AFTER_SECONDS } from '../lib/runtime/unavailable.js';

const STARTING = 'starting';

/** What readiness checks, each set once the worker's start has made it. */
export interface HealthParts {
  store: Store;
  connection: NativeConnection;
  worker: Worker;
}

export interface WorkerHealth {
  url: string;
  /** Adds what the start has made so far. */
  update(parts: Partial<HealthParts>): void;
  close(): Promise<void>;
}

async function readiness(parts: Partial<HealthParts>): Promise<Record<string, string>> {
  const { store, connection, worker } = parts;
  const [mongodb, temporal] = await Promise.all([
    store ? probe(() => pingStore(store)) : STARTING,
    connection ? probe(() => connection.withDeadline(realTimeMs() + HEALTH_CHECK_TIMEOUT_MS, () => connection.healthService.check({}))) : STARTING,
  ]);
  const state = worker?.getState();
  return { worker: state === undefined ? STARTING : state === 'RUNNING' ? 'ok' : state.toLowerCase(), mongodb, temporal };
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body));
}

export async function startWorkerHealth(address: MetricsAddress, log: Logger): Promise<WorkerHealth> {
  const parts: Partial<HealthParts> = {};
  const server = http.createServer((req, res) => {
    const path = req.url?.split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 404, { error: 'not_found' });
    if (path === '/healthz') return send(res, 200, { status: 'ok' });
    if (path !== '/readyz') return send(res, 404, { error: 'not_found' });
    readiness(parts).then(
      (checks) => {
        const ready = Object.values(checks).every((c) => c === 'ok');
        send(res, ready ? 200 : 503, { status: ready ? 'ready' : 'unavailable', checks }, ready ? {} : { 'retry-after': String(RETRY_AFTER_SECONDS) });
      },
      // Not expected (every check catches its own failure), but never a 500 nor an unanswered probe.
      () => send(res, 503, { status: 'unavailable' }, { 'retry-after': String(RETRY_AFTER_SECONDS) }),
    );
  });
  await new Promise<void>((resolve, reject) => server.listen(address.port, address.host, resolve).once('error', reject));
  const bound = server.address();
  const port = typeof bound === 'object' && bound ? bound.port : address.port;
  const url = `http://${address.host.includes(':') ? `[${address.host}]` : address.host}:${port}`;
  log.info('worker health listening', { url });
  return {
    url,
    update: (more) => Object.assign(parts, more),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
