// Which token scopes reach which administration endpoint. Two families reach
// the same endpoints: `admin:*` for a site admin's own tools, `site:*` for a
// third-party app an admin granted site access at consent (the site gate:
// admin, second factor, typed phrase). Either way the token's user must still
// be a site admin when the request comes (re-read every time).

/** What an administration request does. */
export type AdminNeed =
  | 'users:read'
  | 'users:write'
  | 'users:delete'
  | 'tokens:revoke'
  | 'apps:read'
  | 'apps:write'
  | 'config:read'
  | 'config:write'
  | 'invites:read'
  | 'invites:create'
  | 'invites:delete'
  | 'audit:read';

/** The scopes of which a token needs one for each kind of request. */
export const ADMIN_SCOPES: Record<AdminNeed, readonly string[]> = {
  'users:read': ['admin:users:read', 'site:user:read'],
  'users:write': ['admin:users:write', 'site:user:write'],
  'users:delete': ['admin:users:delete', 'site:user:delete'],
  'tokens:revoke': ['admin:users:write', 'site:token:revoke'],
  // Apps are part of the instance's configuration: no scope of their own.
  'apps:read': ['admin:config:read', 'site:config:read'],
  'apps:write': ['admin:config:write', 'site:config:write'],
  'config:read': ['admin:config:read', 'site:config:read'],
  'config:write': ['admin:config:write', 'site:config:write'],
  // Invitations are an admin's own tool only: no site scope reaches them.
  'invites:read': ['admin:invites:read'],
  'invites:create': ['admin:invites:create'],
  'invites:delete': ['admin:invites:delete'],
  // The audit trail (who did what, from which address): an admin's own tool only.
  'audit:read': ['admin:audit:read'],
};

/** Where the administration API lives (admin webhooks and OAuth sources are there too). */
export const ADMIN_API = '/api/oauth/me/admin';
