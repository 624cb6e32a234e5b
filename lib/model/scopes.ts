// The scope vocabulary, each with the plain-words description the
// consent page shows. Team (`team:<id>:<permission>`) and cross-app
// (`app:<client_id>:*`) scopes are patterns, recognised by the helpers below.

import { SINGLE_TEAM_PERMISSIONS, type SingleTeamPermission } from './team-roles.js';

export interface ScopeInfo {
  description: string;
  /** Site scopes need an admin, a second factor and the confirmation phrase. */
  site?: boolean;
  adminOnly?: boolean;
}

export const SCOPES: Readonly<Record<string, ScopeInfo>> = {
  openid: { description: 'Sign you in and know your account id' },
  profile: { description: 'See your name, username and picture, and the other details of your profile' },
  'profile:write': { description: 'Change your profile, postal address and phone number' },
  email: { description: 'See your email address' },
  address: { description: 'See your postal address' },
  phone: { description: 'See your phone number' },
  offline_access: { description: 'Stay signed in when you are not using the app' },
  'apps:read': { description: 'See the apps you have registered' },
  'apps:write': { description: 'Create, change and delete your apps' },
  'teams:read': { description: 'See the teams you belong to' },
  'teams:write': { description: 'Change settings and members of your teams' },
  'teams:create': { description: 'Create teams' },
  'teams:delete': { description: 'Delete your teams' },
  'domains:read': { description: 'See your custom domains' },
  'domains:write': { description: 'Add and remove your custom domains' },
  'gpg:read': { description: 'See your GPG public keys' },
  'gpg:write': { description: 'Add and remove your GPG public keys' },
  'social:read': { description: 'See your linked social accounts' },
  'social:write': { description: 'Disconnect your linked social accounts' },
  'webhooks:read': { description: 'See your webhooks and their deliveries' },
  'webhooks:write': { description: 'Create, change and delete your webhooks' },
  'admin:users:read': { description: 'Read user accounts (admin)', adminOnly: true },
  'admin:users:write': { description: 'Change user accounts (admin)', adminOnly: true },
  'admin:users:delete': { description: 'Delete user accounts (admin)', adminOnly: true },
  'admin:config:read': { description: 'Read the instance configuration (admin)', adminOnly: true },
  'admin:config:write': { description: 'Change the instance configuration (admin)', adminOnly: true },
  'admin:invites:read': { description: 'See invitations (admin)', adminOnly: true },
  'admin:invites:create': { description: 'Create invitations (admin)', adminOnly: true },
  'admin:invites:delete': { description: 'Delete invitations (admin)', adminOnly: true },
  'admin:audit:read': { description: 'Read the audit trail (admin)', adminOnly: true },
  'admin:webhooks:read': { description: 'See admin webhooks and their deliveries (admin)', adminOnly: true },
  'admin:webhooks:write': { description: 'Create, change and test admin webhooks (admin)', adminOnly: true },
  'admin:webhooks:delete': { description: 'Delete admin webhooks (admin)', adminOnly: true },
  'site:user:read': { description: 'Read every user account on this instance', site: true },
  'site:user:write': { description: 'Change every user account on this instance', site: true },
  'site:user:delete': { description: 'Delete any user account on this instance', site: true },
  'site:team:read': { description: 'Read every team on this instance', site: true },
  'site:team:write': { description: 'Change every team on this instance', site: true },
  'site:team:delete': { description: 'Delete any team on this instance', site: true },
  'site:config:read': { description: 'Read the instance configuration', site: true },
  'site:config:write': { description: 'Change the instance configuration', site: true },
  'site:token:revoke': { description: "Revoke any user's OAuth tokens", site: true },
};

// A team id, then one of the permissions (a fixed alternation: linear time).
const BOUND_TEAM = new RegExp(`^team:([A-Za-z0-9_-]{1,64}):(${SINGLE_TEAM_PERMISSIONS.join('|')})$`);
const CROSS_APP = /^app:([A-Za-z0-9._-]+):\*$/;

/** The exact words a site admin types at consent to grant a site scope. */
export const SITE_CONFIRMATION_PHRASE = 'grant site access';

/** The catalogue's entry for a scope: own keys only (`in` would also find `toString`, `constructor`…). */
export const catalogued = (scope: string): ScopeInfo | undefined => (Object.hasOwn(SCOPES, scope) ? SCOPES[scope] : undefined);

export const isSiteScope = (scope: string): boolean => catalogued(scope)?.site === true;

/** A scope of any team tier: aggregate (`teams:*`), single-team (bound or not), cross-instance (`site:team:*`). */
export const isTeamScope = (scope: string): boolean =>
  scope.startsWith('teams:') || scope.startsWith('site:team:') || isSingleTeamScope(scope) || parseBoundTeamScope(scope) !== null;

export function isSingleTeamScope(scope: string): boolean {
  return (SINGLE_TEAM_PERMISSIONS as readonly string[]).some((p) => scope === `team:${p}`);
}

export function parseBoundTeamScope(scope: string): { teamId: string; permission: SingleTeamPermission } | null {
  // `team:member:write` is the unbound member:write, not `write` bound to a team called "member".
  if (isSingleTeamScope(scope)) return null;
  const m = BOUND_TEAM.exec(scope);
  return m ? { teamId: m[1]!, permission: m[2] as SingleTeamPermission } : null;
}

/** The permission of an unbound single-team scope (`team:read` → `read`). */
export function singleTeamPermission(scope: string): SingleTeamPermission | null {
  return isSingleTeamScope(scope) ? (scope.slice('team:'.length) as SingleTeamPermission) : null;
}

export const boundTeamScope = (teamId: string, permission: SingleTeamPermission) => `team:${teamId}:${permission}`;

export function crossAppClientId(scope: string): string | null {
  return CROSS_APP.exec(scope)?.[1] ?? null;
}

/**
 * Scopes Keyflow's own API serves: UserInfo (openid, profile, email, address,
 * phone) and every catalogued scope of /api/oauth/me/* (profile:write, apps:*,
 * webhooks:*, admin:*, teams, domains, gpg, social, site scopes) and
 * single-team scopes.
 * Not offline_access (it only lets the grant have refresh tokens) and not the
 * cross-app `app:<client_id>:*` (a token for exchange by that app). An access
 * token names Keyflow (the issuer) in its `aud` only when it carries one of these.
 */
export function isKeyflowApiScope(scope: string): boolean {
  if (scope === 'offline_access') return false;
  return catalogued(scope) !== undefined || isSingleTeamScope(scope) || parseBoundTeamScope(scope) !== null;
}

/** A scope string Keyflow knows: catalogued, single-team (bound or not), or cross-app. */
export function isKnownScope(scope: string): boolean {
  return catalogued(scope) !== undefined || isSingleTeamScope(scope) || parseBoundTeamScope(scope) !== null || crossAppClientId(scope) !== null;
}

/** Splits a space-separated scope parameter, dropping empties and duplicates, keeping order. */
export function parseScopeParam(value: string | undefined): string[] {
  return [...new Set((value ?? '').split(' ').filter(Boolean))];
}
