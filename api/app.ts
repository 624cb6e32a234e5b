// The Express application: composition of Keyflow's HTTP surface.
import express from 'express';
import { createApiContext, type ApiDeps } from './context.js';
import { defaultBody, errorHandler, notFound } from './http/errors.js';
import { securityHeaders, strictTransportSecurity } from './http/security-headers.js';
import { discoveryRoutes } from './routes/discovery.js';
import { healthRoutes } from './routes/health.js';
import { webfingerRoutes } from './routes/webfinger.js';
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

export function createApp(deps: ApiDeps): express.Express {
  const ctx = createApiContext(deps);
  const { config, log, store, kek, keyring, temporal, events, issuer, findClient, clientAssertions, flows } = ctx;
  const app = express();
  app.disable('x-powered-by');
  // X-Forwarded-For is believed only from the configured proxies (TRUSTED_PROXIES): req.ip is what limits count.
  app.set('trust proxy', config.trustedProxies.length ? config.trustedProxies : false);
  app.set('query parser', 'simple');
  const session = { store, secureCookies: ctx.secureCookies };
  const flow = { issuer, store, log, findClient, secureCookies: ctx.secureCookies };

  app.use(securityHeaders);
  app.use(strictTransportSecurity(issuer));
  app.use(defaultBody);
  app.use(healthRoutes(store, temporal));
  app.use(discoveryRoutes(issuer, keyring, { grantTypes: Object.keys(GRANT_HANDLERS), tokenEndpointAuthMethods: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'] }));
  app.use(webfingerRoutes(issuer, { store, limits: config.limits }));
  app.use(assetRoutes());
  // Endpoints for clients and resource requests: no browser session.
  app.use(tokenRoutes({ issuer, store, signer: ctx.signer, keyring, log, findClient, temporal: temporal.client, taskQueue: config.temporal.taskQueue, refreshTokenTtlMs: config.refreshTokenTtlMs, refreshFamilyRotationsPerRun: config.refreshFamilyRotationsPerRun, clientAssertions }));
  app.use(parRoutes(ctx));
  const device = { ...ctx, deviceCodeTtlMs: config.deviceCodeTtlMs };
  app.use(deviceAuthorizationRoutes(device));
  app.use(userinfoRoutes({ issuer, store, keyring, events }));
  app.use(registrationRoutes({ issuer, store, keyring, grantTypes: Object.keys(GRANT_HANDLERS), events, temporal: temporal.client }));
  app.use(appsApiRoutes({ issuer, store, keyring, events, temporal: temporal.client, reauthMaxAgeMs: config.reauthMaxAgeMs }));
  app.use(webhookRoutes({ issuer, store, keyring, kek, events, flows, deliveryTimeoutMs: config.webhookTimeoutMs, outbound: config.outbound }));
  app.use(introspectionRoutes({ issuer, store, keyring, findClient, temporal: temporal.client, log, clientAssertions }));
  app.use(sudoRoutes({ issuer, store, keyring, flows }));
  const stepUp = { ...ctx, challengeTtlMs: config.stepUpChallengeTtlMs };
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
