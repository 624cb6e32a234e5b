// Every path the app mounts, each defined once: the routers mount these, and
// the views link with them. The endpoints discovery advertises (ENDPOINTS,
// WELL_KNOWN) are defined in lib/model/discovery.ts, which builds the metadata
// from them; the administration API's root (ADMIN_API) in
// lib/model/admin-access.ts and the webhook APIs' (WEBHOOK_RULES) in
// lib/webhooks/webhook-rules.ts, whose rules name them. This module names them
// beside the others, so that the whole HTTP surface reads in one place.
import { ADMIN_API } from '../lib/model/admin-access.js';
import { ENDPOINTS, WELL_KNOWN } from '../lib/model/discovery.js';
import { WEBHOOK_RULES } from '../lib/webhooks/webhook-rules.js';

export { ADMIN_API, ENDPOINTS, WELL_KNOWN };

/** Where the sign-in and consent pages hand an authorization request back to the authorization endpoint. */
export const AUTHORIZATION_RESUME = `${ENDPOINTS.authorization}/resume`;

/** Step-up 2FA: the client's endpoints, the confirmation page and its answers, and the end of a sudo window. */
export const STEP_UP_PATHS = {
  challenges: '/api/oauth/2fa/challenges',
  verify: '/api/oauth/2fa/verify',
  info: '/api/oauth/2fa/info',
  authorize: '/api/oauth/2fa/authorize',
  passkeyOptions: '/api/oauth/2fa/passkey/options',
  passkey: '/api/oauth/2fa/passkey',
  sudoRevoke: '/api/oauth/2fa/sudo/revoke',
  page: '/oauth/2fa',
} as const;

/** The REST resources of the token's user. */
export const RESOURCES = {
  profile: '/api/oauth/me/profile',
  apps: '/api/oauth/me/apps',
  domains: '/api/oauth/me/domains',
  gpgKeys: '/api/oauth/me/gpg_keys',
  socialAccounts: '/api/oauth/me/social_accounts',
  webhooks: WEBHOOK_RULES.user.base,
  /** The caller's teams. */
  teams: '/api/oauth/me/teams',
  /** One team, for a token bound to it at consent. */
  boundTeam: '/api/oauth/me/team',
} as const;

/** Every team on the instance, for a site admin's token (the administration API's guard covers it). */
export const SITE_API = '/api/oauth/site';

/** The REST resources of the administration API (site admins). */
export const ADMIN_RESOURCES = {
  users: `${ADMIN_API}/users`,
  apps: `${ADMIN_API}/apps`,
  config: `${ADMIN_API}/config`,
  audit: `${ADMIN_API}/audit`,
  invites: `${ADMIN_API}/invites`,
  sources: `${ADMIN_API}/oauth_sources`,
  webhooks: WEBHOOK_RULES.admin.base,
  siteTeams: `${SITE_API}/teams`,
} as const;

/** The browser pages, and the JSON endpoints their scripts call. */
export const PAGES = {
  home: '/',
  login: '/login',
  /** Cancels the sign-in of an authorization request: the client gets access_denied. */
  loginCancel: '/login/cancel',
  /** The sign-in form's proof-of-work challenges (the captcha gate). */
  loginCaptcha: '/login/captcha',
  loginPasskey: '/login/passkey',
  loginPasskeyOptions: '/login/passkey/options',
  secondFactor: '/login/second-factor',
  secondFactorPasskey: '/login/second-factor/passkey',
  secondFactorPasskeyOptions: '/login/second-factor/passkey/options',
  /** `/:slug` goes to an OAuth source ("Sign in with …"), `/:slug/callback` comes back. */
  sourceSignIn: '/login/source',
  logout: '/logout',
  signup: '/signup',
  consent: '/consent',
  consentPasskey: '/consent/site/passkey',
  consentPasskeyOptions: '/consent/site/passkey/options',
  /** Where people enter a device's user code (RFC 8628 verification_uri). */
  device: '/device',
  deviceConsent: '/device/consent',
  account: '/account',
  profile: '/account/profile',
  security: '/account/security',
  totpSetup: '/account/security/totp/setup',
  totpConfirm: '/account/security/totp/confirm',
  totpRemove: '/account/security/totp/remove',
  backupCodes: '/account/security/backup-codes',
  passkeys: '/account/security/passkeys',
  passkeyOptions: '/account/security/passkeys/options',
  password: '/account/password',
  sessions: '/account/sessions',
  tokens: '/account/tokens',
  connectedApps: '/account/connected-apps',
  apps: '/account/apps',
  teams: '/account/teams',
  social: '/account/social',
  socialLink: '/account/social/link',
  gpgKeys: '/account/gpg-keys',
  domains: '/account/domains',
} as const;

/** The administration console (site admins). */
export const ADMIN_PAGES = {
  home: '/admin',
  users: '/admin/users',
  apps: '/admin/apps',
  invites: '/admin/invites',
  teams: '/admin/teams',
  sources: '/admin/sources',
  settings: '/admin/settings',
  audit: '/admin/audit',
  webhooks: '/admin/webhooks',
} as const;

/** Liveness and readiness. */
export const HEALTH = { live: '/healthz', ready: '/readyz' } as const;

/** The pages' static assets (api/assets, served by Keyflow itself). */
export const ASSETS = '/assets';
