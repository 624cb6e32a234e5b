// Starts the api: the HTTP server first (answering 503 while it starts), then
// core services — MongoDB waited for as long as it takes — and the Temporal
// client, then the app. Used by api/main.ts and by tests that run an api
// in-process.
import http from 'node:http';
import type { Server } from 'node:http';
import type { Express } from 'express';
import type { Config } from '../lib/config/env.js';
import { setPasswordHashCost } from '../lib/security/password.js';
import type { Logger } from '../lib/runtime/log.js';
import { startCoreServices } from '../lib/runtime/services.js';
import { lazyTemporalClient } from '../lib/temporal/connection.js';
import { createEventPipeline } from '../lib/webhooks/event-pipeline.js';
import { createAuditTrail } from '../lib/audit/audit-trail.js';
import { createRotationSummary } from '../lib/grants/rotation-summary.js';
import { createApp } from './app.js';
import type { ApiDeps } from './context.js';
import { createStartupApp } from './startup-app.js';

/** How long a stopping api waits for event dispatches still in flight. */
const SHUTDOWN_DISPATCH_WAIT_MS = 5_000;
/**
 * How long a stopping api lets requests in flight finish before it closes
 * every connection: a browser's pre-opened socket that never sends a request
 * would otherwise hold the stop until Node's 60 s header timeout.
 */
const SHUTDOWN_REQUEST_WAIT_MS = 5_000;

export interface RunningApi {
  server: Server;
  /** The Express app (tests read its routes). */
  app: Express;
  deps: ApiDeps;
  /** The base URL the server listens on (its port may have been chosen by the OS). */
  url: string;
  stop(): Promise<void>;
}

/** An api listening, its services still starting. */
export interface StartingApi {
  server: Server;
  url: string;
  /** The api once its services are up; null when stop() came first. Rejects when the start fails. */
  ready: Promise<RunningApi | null>;
  stop(): Promise<void>;
}

/** Listens at once; the app takes over from the startup answers when the services are up. */
export async function openApi(config: Config, log: Logger): Promise<StartingApi> {
  setPasswordHashCost(config.passwordHashCost);
  const temporal = lazyTemporalClient(config);
  let state = 'starting';
  let handler: http.RequestListener = createStartupApp(temporal, () => state);
  const server = http.createServer((req, res) => handler(req, res));
  try {
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(config.port, config.bindAddress, resolve));
  } catch (err) {
    await temporal.close();
    throw err;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.bindAddress.includes(':') ? `[${config.bindAddress}]` : config.bindAddress}:${port}`;

  const stopping = new AbortController();
  let release = async () => {};
  const ready = (async (): Promise<RunningApi | null> => {
    // Every MongoDB and Temporal call on a request's path is bounded: a request answers 503 rather than wait.
    const callTimeoutMs = config.dependencyTimeoutMs;
    const services = await startCoreServices(config, log, { signal: stopping.signal, onProgress: (s) => (state = s), callTimeoutMs });
    const audit = createAuditTrail({ store: services.store, log, recording: config.audit.recording });
    // Made here, outside any request: its sweep's records carry no request's context.
    const refreshRotations = createRotationSummary(audit);
    const events = createEventPipeline({
      store: services.store,
      audit,
      flows: { client: temporal.client, taskQueue: config.temporal.taskQueue, callTimeoutMs },
      log,
      deliveryTimeoutMs: config.webhookTimeoutMs,
    });
    const deps: ApiDeps = { config, log, temporal, events, audit, refreshRotations, ...services };
    const app = createApp(deps);
    handler = app;
    // Events a crashed process left in the outbox are dispatched by the sweep.
    const stopSweeping = events.startSweeping();
    release = async () => {
      stopSweeping();
      // The rotations counted so far are recorded before the audit trail's last write.
      refreshRotations.stop();
      refreshRotations.drain();
      // Dispatches in flight finish (bounded: what does not is still in the outbox, for the next sweep).
      await Promise.race([Promise.all([events.idle(), audit.flush()]), new Promise((r) => setTimeout(r, SHUTDOWN_DISPATCH_WAIT_MS).unref())]);
      await services.store.close();
    };
    return { server, app, deps, url, stop };
  })().catch((err: unknown) => {
    if (stopping.signal.aborted) return null;
    throw err;
  });
  ready.catch(() => undefined); // the caller awaits it; a failure is its to report

  async function stop(): Promise<void> {
    stopping.abort();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_REQUEST_WAIT_MS);
    await closed;
    clearTimeout(force);
    await ready.catch(() => null);
    await release().catch(() => undefined);
    await temporal.close();
  }
  return { server, url, ready, stop };
}

/** An api ready to serve (its services up), for tests and tools; rejects when the start fails. */
export async function startApi(config: Config, log: Logger): Promise<RunningApi> {
  const api = await openApi(config, log);
  const running = await api.ready.catch(async (err: unknown) => {
    await api.stop();
    throw err;
  });
  if (!running) throw new Error('the api was stopped while it started');
  return running;
}
