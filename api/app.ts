// The Express application: composition of Keyflow's HTTP surface.
import express from 'express';
import { createApiContext, type ApiDeps } from './context.js';
import { defaultBody, errorHandler, notFound } from './http/errors.js';
import { securityHeaders, strictTransportSecurity } from './http/security-headers.js';
import { healthRoutes } from './health.js';
import { sessionMiddleware } from './http/session.js';
import { signedInSession } from './http/signed-in.js';
import { pingStore } from '../lib/store/db.js';
import { requestContext } from './http/request-id.js';
import { observeRequests } from './http/observe.js';
import { accessLog } from '../lib/runtime/log.js';
import { IMPLICIT_GRANT_TYPE } from '../lib/model/response-type.js';
// The protocol: OAuth 2.0 and OpenID Connect endpoints, step-up.
import { discoveryRoutes } from './protocol/discovery.js';
import { webfingerRoutes } from './protocol/webfinger.js';
import { authorizeRoutes } from './protocol/authorization.js';
import { deviceAuthorizationRoutes } from './protocol/device-authorization.js';
import { GRANT_HANDLERS, tokenOutcome, tokenRoutes } from './protocol/token/endpoint.js';
import { countTokenRequest, observeHttpRequest } from '../lib/runtime/metrics.js';
import { parRoutes } from './protocol/par.js';
import { userinfoRoutes } from './protocol/userinfo.js';
import { endSessionRoutes } from './protocol/end-session.js';
import { introspectionRoutes } from './protocol/introspection.js';
import { revocationRoutes } from './protocol/revocation.js';
import { registrationRoutes } from './protocol/registration.js';
import { sudoRoutes } from './protocol/sudo-revocation.js';
import { stepUpRoutes } from './protocol/step-up.js';
// REST resources of the user and of the site admin.
import { adminArea } from './resources/admin/admin-area.js';
import { profileRoutes } from './resources/profile.js';
import { appsApiRoutes } from './resources/apps.js';
import { teamsApiRoutes } from './resources/teams/my-teams.js';
import { teamApiRoutes } from './resources/teams/bound-team.js';
import { siteTeamsApiRoutes } from './resources/teams/site-teams.js';
import { gpgKeysApiRoutes } from './resources/gpg-keys.js';
import { sourcesAdminApiRoutes } from './resources/admin/sources.js';
import { adminUsersApiRoutes } from './resources/admin/users.js';
import { adminAppsApiRoutes } from './resources/admin/apps.js';
import { adminConfigApiRoutes } from './resources/admin/config.js';
import { adminInvitesApiRoutes } from './resources/admin/invites.js';
import { adminAuditApiRoutes } from './resources/admin/audit.js';
import { webhookRoutes } from './resources/webhooks.js';
import { domainsApiRoutes } from './resources/domains.js';
import { socialAccountsApiRoutes } from './resources/social-accounts.js';
// Browser pages.
import { accountRoutes } from './pages/account.js';
import { consentRoutes } from './pages/consent.js';
import { devicePageRoutes } from './pages/device.js';
import { loginRoutes } from './pages/login.js';
import { logoutRoutes } from './pages/logout.js';
import { signupRoutes } from './pages/signup.js';
import { assetRoutes } from './pages/assets.js';
import { tokenPageRoutes } from './pages/tokens.js';
import { sessionsPageRoutes } from './pages/sessions.js';
import { connectedAppsPageRoutes } from './pages/connected-apps.js';
import { passwordPageRoutes } from './pages/password.js';
import { appsPageRoutes } from './pages/apps.js';
import { teamsPageRoutes } from './pages/teams.js';
import { gpgKeysPageRoutes } from './pages/gpg-keys.js';
import { domainsPageRoutes } from './pages/domains.js';
import { socialSignInRoutes } from './pages/social-sign-in.js';
import { socialAccountsPageRoutes } from './pages/social-accounts.js';
import { stepUpPageRoutes } from './pages/step-up.js';
import { adminConsoleRoutes } from './pages/admin/console.js';
import { ENDPOINTS, PAGES } from './paths.js';

export function createApp(deps: ApiDeps): express.Express {
  const ctx = createApiContext(deps);
  const { config, log, store, keyring, temporal, issuer } = ctx;
  const app = express();
  app.disable('x-powered-by');
  // X-Forwarded-For is believed only from the configured proxies (TRUSTED_PROXIES): req.ip is what limits count.
  app.set('trust proxy', config.trustedProxies.length ? config.trustedProxies : false);
  app.set('query parser', 'simple');
  // Each factory takes the context, plus the settings only it reads.
  // The token endpoint's, and the implicit flow's at the authorization endpoint (for the clients registered for it).
  const grantTypes = [...Object.keys(GRANT_HANDLERS), IMPLICIT_GRANT_TYPE];
  const idle = { ...ctx, idleMs: config.sessionIdleMs };

  // First: the request's span (everything after runs inside it), its metrics and its access-log line.
  app.use(
    observeRequests({
      clientAddress: config.tracing?.clientAddress ?? false,
      onFinish: (request, res) => {
        observeHttpRequest(request.method, request.route, request.status, request.durationMs / 1000);
        if (request.route === ENDPOINTS.token && request.method === 'POST') countTokenRequest(request.grantType ?? 'other', tokenOutcome(request));
        if (config.accessLog) accessLog(log, { ...request, requestId: String(res.getHeader('x-request-id') ?? '') || undefined });
      },
    }),
  );
  // The request's id, address and user agent, for the audit records it causes (and X-Request-Id on the response).
  app.use(requestContext);
  app.use(securityHeaders);
  app.use(strictTransportSecurity(issuer));
  app.use(defaultBody);
  app.use(healthRoutes(() => pingStore(store), temporal));
  app.use(
    discoveryRoutes(issuer, keyring, {
      grantTypes,
      tokenEndpointAuthMethods: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'],
      idTokenAlgs: config.idTokenAlgs,
    }),
  );
  app.use(webfingerRoutes(issuer, ctx));
  app.use(assetRoutes());
  // Before every router: the administration API's one guard (token, then a site admin, else the unknown path's 404).
  app.use(adminArea(ctx));
  // Endpoints for clients and resource requests: no browser session.
  app.use(
    tokenRoutes({
      ...ctx,
      refreshTokenTtlMs: config.refreshTokenTtlMs,
      refreshRetryWindows: { defaultMs: config.refreshRetryWindowMs, publicUnboundMs: config.refreshRetryWindowPublicMs },
      idTokenClaims: config.idTokenClaims,
    }),
  );
  app.use(parRoutes(ctx));
  const device = { ...ctx, deviceCodeTtlMs: config.deviceCodeTtlMs };
  app.use(deviceAuthorizationRoutes(device));
  app.use(userinfoRoutes(ctx));
  app.use(profileRoutes(ctx));
  app.use(registrationRoutes({ ...ctx, grantTypes }));
  app.use(appsApiRoutes(ctx));
  app.use(teamsApiRoutes(ctx));
  app.use(teamApiRoutes(ctx));
  app.use(siteTeamsApiRoutes(ctx));
  app.use(gpgKeysApiRoutes(ctx));
  app.use(domainsApiRoutes(ctx));
  app.use(sourcesAdminApiRoutes(ctx));
  app.use(adminUsersApiRoutes(idle));
  app.use(adminAppsApiRoutes(ctx));
  app.use(adminConfigApiRoutes(ctx));
  app.use(adminInvitesApiRoutes(ctx));
  app.use(adminAuditApiRoutes(ctx));
  app.use(socialAccountsApiRoutes(ctx));
  app.use(webhookRoutes({ ...ctx, deliveryTimeoutMs: config.webhookTimeoutMs }));
  app.use(introspectionRoutes(ctx));
  app.use(revocationRoutes(ctx));
  app.use(sudoRoutes(ctx));
  const stepUp = { ...ctx, challengeTtlMs: config.stepUpChallengeTtlMs };
  app.use(stepUpRoutes(stepUp));
  // Browser-facing endpoints and pages.
  app.use(sessionMiddleware(idle));
  // A session whose user is gone or disabled is signed out before any page or flow reads it.
  app.use(signedInSession(ctx));
  app.use(authorizeRoutes(ctx));
  app.use(loginRoutes(ctx));
  app.use(logoutRoutes(ctx));
  app.use(signupRoutes(ctx));
  app.use(endSessionRoutes(ctx));
  app.use(consentRoutes(ctx));
  app.use(devicePageRoutes(device));
  app.use(stepUpPageRoutes(stepUp));
  app.use(accountRoutes(ctx));
  app.use(sessionsPageRoutes(idle));
  app.use(passwordPageRoutes(idle));
  app.use(tokenPageRoutes({ ...ctx, patMaxLifetimeMs: config.patMaxLifetimeMs }));
  app.use(connectedAppsPageRoutes(ctx));
  app.use(appsPageRoutes(ctx));
  app.use(teamsPageRoutes(ctx));
  app.use(gpgKeysPageRoutes(ctx));
  app.use(domainsPageRoutes(ctx));
  app.use(socialSignInRoutes(ctx));
  app.use(socialAccountsPageRoutes(ctx));
  app.use(adminConsoleRoutes(ctx));
  app.get(PAGES.home, (_req, res) => res.redirect(303, PAGES.account));
  app.use(notFound);
  app.use(errorHandler(log));
  return app;
}
