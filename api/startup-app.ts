// What the api answers while it starts (waiting for MongoDB, preparing indexes
// and keys): alive, not ready — /readyz 503 saying what the start waits for —
// and 503 with Retry-After to every other request, so that an orchestrator and
// clients see a starting api rather than a refused connection.
import express from 'express';
import { countUnavailable } from '../lib/runtime/metrics.js';
import type { TemporalHandle } from '../lib/temporal/connection.js';
import { sendUnavailable } from './http/errors.js';
import { securityHeaders } from './http/security-headers.js';
import { healthRoutes } from './health.js';

/** `state()` says what the start is at (e.g. "waiting for MongoDB: connect ECONNREFUSED …"). */
export function createStartupApp(temporal: TemporalHandle, state: () => string): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(securityHeaders);
  app.use(healthRoutes(() => Promise.reject(new Error(state())), temporal));
  app.use((req: express.Request, res: express.Response) => {
    countUnavailable('starting');
    sendUnavailable(req, res);
  });
  return app;
}
