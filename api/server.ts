// Starts the api: core services, Temporal client, HTTP server. Used by
// api/main.ts and by tests that run an api in-process.
import type { Server } from 'node:http';
import type { Express } from 'express';
import type { Config } from '../lib/config/env.js';
import type { Logger } from '../lib/runtime/log.js';
import { startCoreServices } from '../lib/runtime/services.js';
import { lazyTemporalClient } from '../lib/temporal/connection.js';
import { createEventPipeline } from '../lib/webhooks/event-pipeline.js';
import { createApp } from './app.js';
import type { ApiDeps } from './context.js';

/** How long a stopping api waits for event dispatches still in flight. */
const SHUTDOWN_DISPATCH_WAIT_MS = 5_000;

export interface RunningApi {
  server: Server;
  /** The Express app (tests read its routes). */
  app: Express;
  deps: ApiDeps;
  /** The base URL the server listens on (its port may have been chosen by the OS). */
  url: string;
  stop(): Promise<void>;
}

export async function startApi(config: Config, log: Logger): Promise<RunningApi> {
  const services = await startCoreServices(config, log);
  const temporal = lazyTemporalClient(config);
  const events = createEventPipeline({
    store: services.store,
    flows: { client: temporal.client, taskQueue: config.temporal.taskQueue },
    log,
    deliveryTimeoutMs: config.webhookTimeoutMs,
  });
  const deps: ApiDeps = { config, log, temporal, events, ...services };
  const app = createApp(deps);
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(config.port, config.bindAddress, () => resolve(s)).on('error', reject);
  });
  // Events a crashed process left in the outbox are dispatched by the sweep.
  const stopSweeping = events.startSweeping();
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    server,
    app,
    deps,
    url: `http://${config.bindAddress.includes(':') ? `[${config.bindAddress}]` : config.bindAddress}:${port}`,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await closed;
      stopSweeping();
      // Dispatches in flight finish (bounded: what does not is still in the outbox, for the next sweep).
      await Promise.race([events.idle(), new Promise((r) => setTimeout(r, SHUTDOWN_DISPATCH_WAIT_MS).unref())]);
      await Promise.allSettled([temporal.close(), services.store.close()]);
    },
  };
}
