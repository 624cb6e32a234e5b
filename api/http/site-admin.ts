// The guard of every administration API: a valid access token, whose user is
// a site admin now (re-read on every request, so a demoted admin's tokens stop
// working at once), carrying one of the scopes that reach the endpoint
// (lib/domain/admin-access.ts; else 403 insufficient_scope). To anyone who is
// not a site admin every administration path is 404 not_found, as an unknown
// path is, before any scope check: a regular user cannot learn that it exists.
import type { RequestHandler } from 'express';
import { ADMIN_SCOPES, type AdminNeed } from '../../lib/domain/admin-access.js';
import { findUserById } from '../../lib/store/users.js';
import { requireAccessToken, requireAnyScope, type BearerDeps } from '../oauth/bearer.js';
import { notFound } from './errors.js';

/** After requireAccessToken: the token's user must be a site admin; anyone else gets the unknown path's 404. */
export function siteAdminOnly(deps: Pick<BearerDeps, 'store'>): RequestHandler {
  return async (req, res, next) => {
    const user = await findUserById(deps.store, req.access!.userId);
    if (user?.role === 'admin') return next();
    notFound(req, res, next);
  };
}

/** The handlers that admit an administration request of kind `need`. */
export function adminGuard(deps: BearerDeps, need: AdminNeed): RequestHandler[] {
  return [requireAccessToken(deps, []), siteAdminOnly(deps), requireAnyScope(deps, ADMIN_SCOPES[need])];
}
