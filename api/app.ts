// The Express application: composition of Keyflow's HTTP surface.
import express from 'express';
import type { Config } from '../lib/config/env.js';
import type { FlowClient } from '../lib/flows/flow-client.js';
import type { Kek } from '../lib/security/kek.js';
import type { Keyring } from '../lib/keys/keyring.js';
import type { Signer } from '../lib/keys/signer.js';
import type { Logger } from '../lib/runtime/log.js';
import type { Store } from '../lib/store/db.js';
import type { TemporalHandle } from '../lib/temporal/connection.js';
import type { EventPipeline } from '../lib/webhooks/event-pipeline.js';
import { defaultBody, errorHandler, notFound } from './http/errors.js';
import { securityHeaders, strictTransportSecurity } from './http/security-headers.js';
import { discoveryRoutes } from './routes/discovery.js';
import { healthRoutes } from './routes/health.js';
import { webfingerRoutes } from './routes/webfinger.js';
import { cachedClientLookup } from '../lib/store/clients.js';
import { sessionMiddleware } from './http/session.js';
import { accountRoutes } from './pages/account.js';
import { consentRoutes } from './pages/consent.js';
import { devicePageRoutes } from './pages/device.js';
import { loginRoutes } from './pages/login.js';
import { assetRoutes } from './routes/assets.js';
import { authorizeRoutes } from './routes/authorize.js';
import { deviceAuthorizationRoutes } from './routes/device-authorization.js';
import { GRANT_HANDLERS, tokenRoutes } from './routes/token.js';
import { parRoutes } from './routes/par.js';
import { userinfoRoutes } from './routes/userinfo.js';
import { endSessionRoutes } from './routes/end-session.js';
import { introspectionRoutes } from './routes/introspection.js';
import { clientAssertionVerifier } from './oauth/client-assertion.js';
import { registrationRoutes } from './routes/registration.js';
import { appsApiRoutes } from './routes/apps-api.js';
import { webhookRoutes } from './routes/webhooks.js';
import { sudoRoutes } from './routes/sudo.js';
import { tokenPageRoutes } from './pages/tokens.js';
import { sessionsPageRoutes } from './pages/sessions.js';
import { passwordPageRoutes } from './pages/password.js';
import { appsPageRoutes } from './pages/apps.js';
import { stepUpRoutes } from './routes/step-up.js';
import { stepUpPageRoutes } from './pages/step-up.js';

export interface ApiDeps {
  config: Config;
  log: Logger;
  store: Store;
  kek: Kek;
  keyring: Keyring;
  signer: Signer;
  temporal: TemporalHandle;
  /** The event pipeline: user events to the user's webhooks, admin events to the audit log and admin webhooks. */
  events: EventPipeline;
}

export function createApp({ config, log, store, kek, keyring, signer, temporal, events }: ApiDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // X-Forwarded-For is believed only from the configured proxies (TRUSTED_PROXIES): req.ip is what limits count.
  app.set('trust proxy', config.trustedProxies.length ? config.trustedProxies : false);
  app.set('query parser', 'simple');
  const issuer = config.issuer;
  const session = { store, secureCookies: issuer.startsWith('https:') };
  const findClient = cachedClientLookup(store);
  // private_key_jwt at every client-authenticated endpoint (authenticateClient falls back to app.locals).
  const clientAssertions = clientAssertionVerifier({ issuer, store, outbound: config.outbound });
  app.locals.clientAssertions = clientAssertions;
  const flow = { issuer, store, log, findClient, secureCookies: session.secureCookies };
  // What the per-flow clients (lib/flows) need: the Temporal client and the worker's task queue.
  const flows: FlowClient = { client: temporal.client, taskQueue: config.temporal.taskQueue };

  app.use(securityHeaders);
  app.use(strictTransportSecurity(issuer));
  app.use(defaultBody);
  app.use(healthRoutes(store, temporal));
  app.use(discoveryRoutes(issuer, keyring, { grantTypes: Object.keys(GRANT_HANDLERS), tokenEndpointAuthMethods: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'] }));
  app.use(webfingerRoutes(issuer, { store, limits: config.limits }));
  app.use(assetRoutes());
  // Endpoints for clients and resource requests: no browser session.
  app.use(tokenRoutes({ issuer, store, signer, keyring, log, findClient, temporal: temporal.client, taskQueue: config.temporal.taskQueue, refreshTokenTtlMs: config.refreshTokenTtlMs, refreshFamilyRotationsPerRun: config.refreshFamilyRotationsPerRun, clientAssertions }));
  app.use(parRoutes({ store, log, findClient, limits: config.limits }));
  const device = { issuer, store, log, findClient, flows, deviceCodeTtlMs: config.deviceCodeTtlMs, limits: config.limits };
  app.use(deviceAuthorizationRoutes(device));
  app.use(userinfoRoutes({ issuer, store, keyring, events }));
  app.use(registrationRoutes({ issuer, store, keyring, grantTypes: Object.keys(GRANT_HANDLERS), events, temporal: temporal.client }));
  app.use(appsApiRoutes({ issuer, store, keyring, events, temporal: temporal.client, reauthMaxAgeMs: config.reauthMaxAgeMs }));
  app.use(webhookRoutes({ issuer, store, keyring, kek, events, flows: { client: temporal.client, taskQueue: config.temporal.taskQueue }, deliveryTimeoutMs: config.webhookTimeoutMs, outbound: config.outbound }));
  app.use(introspectionRoutes({ issuer, store, keyring, findClient, temporal: temporal.client, log, clientAssertions }));
  app.use(sudoRoutes({ issuer, store, keyring, flows }));
  const stepUp = { issuer, store, log, findClient, flows, outbound: config.outbound, challengeTtlMs: config.stepUpChallengeTtlMs, limits: config.limits };
  app.use(stepUpRoutes(stepUp));
  // Browser-facing endpoints and pages.
  app.use(sessionMiddleware({ ...session, idleMs: config.sessionIdleMs }));
  app.use(authorizeRoutes(flow));
  const signOutDeps = { ...session, issuer, temporal: temporal.client, taskQueue: config.temporal.taskQueue, log };
  app.use(loginRoutes({ ...signOutDeps, issuer, kek, limits: config.limits, outbound: config.outbound }));
  app.use(endSessionRoutes({ ...signOutDeps, issuer, keyring, findClient }));
  app.use(consentRoutes(flow));
  app.use(devicePageRoutes({ ...device, ...session }));
  app.use(stepUpPageRoutes({ ...stepUp, ...session, kek }));
  app.use(accountRoutes({ ...session, issuer, kek, log, events, reauthMaxAgeMs: config.reauthMaxAgeMs }));
  app.use(sessionsPageRoutes({ ...signOutDeps, idleMs: config.sessionIdleMs }));
  app.use(passwordPageRoutes({ ...signOutDeps, kek, limits: config.limits, outbound: config.outbound, idleMs: config.sessionIdleMs }));
  app.use(tokenPageRoutes({ ...session, log, reauthMaxAgeMs: config.reauthMaxAgeMs, patMaxLifetimeMs: config.patMaxLifetimeMs }));
  app.use(appsPageRoutes({ ...session, events, temporal: temporal.client, reauthMaxAgeMs: config.reauthMaxAgeMs }));
  app.get('/', (_req, res) => res.redirect(303, '/account'));
  app.use(notFound);
  app.use(errorHandler(log));
  return app;
}
