// The guard of the administration API. Every path under /api/oauth/me/admin
// and /api/oauth/site, with every method and unknown sub-paths too, passes
// adminArea first (api/app.ts mounts it before every router): a valid access
// token (else the 401 challenge), whose user is a site admin now (re-read on
// every request, so a demoted admin's tokens stop working at once). To anyone
// else every such path is 404 not_found, as an unknown path is, before any
// scope check or 405: a regular user cannot learn that a path, or a method of
// it, exists. Each route then checks its scopes (adminScopes,
// lib/model/admin-access.ts; else 403 insufficient_scope).
import { Router, type RequestHandler } from 'express';
import { ADMIN_SCOPES, type AdminNeed } from '../../../lib/model/admin-access.js';
import { findUserById } from '../../../lib/store/users.js';
import { requireAccessToken, requireAnyScope, type BearerDeps } from '../../protocol/shared/bearer.js';
import { notFound } from '../../http/errors.js';
import { ADMIN_API, SITE_API } from '../../paths.js';

/** The administration API's paths (ADMIN_API, and the site API): routing ignores case and a trailing slash, so this does too. */
const ADMIN_AREA = new RegExp(`^(?:${ADMIN_API}|${SITE_API})(?:/|$)`, 'i');

/** After requireAccessToken: the token's user must be a site admin; anyone else gets the unknown path's 404. */
function siteAdminOnly(deps: Pick<BearerDeps, 'store'>): RequestHandler {
  return async (req, res, next) => {
    const user = await findUserById(deps.store, req.access!.userId);
    if (user?.role === 'admin') return next();
    notFound(req, res, next);
  };
}

/** True for a path behind adminArea. */
export const inAdminArea = (path: string): boolean => ADMIN_AREA.test(path);

/** The one guard in front of every administration route; other paths go past it ('router': on after this router). */
export function adminArea(deps: BearerDeps): Router {
  const router = Router();
  const inArea: RequestHandler = (req, _res, next) => (inAdminArea(req.path) ? next() : next('router'));
  router.use(inArea, requireAccessToken(deps, []), siteAdminOnly(deps));
  return router;
}

/** After adminArea: the token must carry one of the scopes that reach a request of kind `need`. */
export function adminScopes(deps: Pick<BearerDeps, 'issuer'>, need: AdminNeed): RequestHandler {
  return requireAnyScope(deps, ADMIN_SCOPES[need]);
}
