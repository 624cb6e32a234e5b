// The Express application: composition of Keyflow's HTTP surface.
import express from 'express';
import type { Config } from '../config/env.js';
import type { Keyring } from '../keys/keyring.js';
import type { Signer } from '../keys/signer.js';
import type { Logger } from '../runtime/log.js';
import type { Store } from '../store/db.js';
import type { TemporalHandle } from '../temporal/connection.js';
import { errorHandler, notFound } from './http/errors.js';
import { securityHeaders } from './http/security-headers.js';
import { discoveryRoutes } from './routes/discovery.js';
import { healthRoutes } from './routes/health.js';
import { webfingerRoutes } from './routes/webfinger.js';

export interface ApiDeps {
  config: Config;
  log: Logger;
  store: Store;
  keyring: Keyring;
  signer: Signer;
  temporal: TemporalHandle;
}

export function createApp({ config, log, store, keyring, temporal }: ApiDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.set('query parser', 'simple');
  app.use(securityHeaders);
  app.use(healthRoutes(store, temporal));
  app.use(discoveryRoutes(config.issuer, keyring));
  app.use(webfingerRoutes(config.issuer, store));
  app.use(notFound);
  app.use(errorHandler(log));
  return app;
}
