// The guard of every administration API: a valid access token, whose user is
// a site admin now (re-read on every request, so a demoted admin's tokens stop
// working at once: 403 access_denied), carrying one of the scopes that reach
// the endpoint (lib/domain/admin-access.ts; else 403 insufficient_scope).
import type { RequestHandler } from 'express';
import { ADMIN_SCOPES, type AdminNeed } from '../../lib/domain/admin-access.js';
import { findUserById } from '../../lib/store/users.js';
import { requireAccessToken, requireAnyScope, type BearerDeps } from '../oauth/bearer.js';
import { sendError } from './errors.js';

/** After requireAccessToken: the token's user must be a site admin. */
export function siteAdminOnly(deps: Pick<BearerDeps, 'store'>): RequestHandler {
  return async (req, res, next) => {
    const user = await findUserById(deps.store, req.access!.userId);
    if (user?.role !== 'admin') return sendError(res, 403, 'access_denied', 'this API is for site administrators');
    next();
  };
}

/** The handlers that admit an administration request of kind `need`. */
export function adminGuard(deps: BearerDeps, need: AdminNeed): RequestHandler[] {
  return [requireAccessToken(deps, []), siteAdminOnly(deps), requireAnyScope(deps, ADMIN_SCOPES[need])];
}
