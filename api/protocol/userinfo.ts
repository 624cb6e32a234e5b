// UserInfo (OIDC Core §5.3), GET and POST /api/oauth/userinfo: the claims of
// the access token's grant, as JSON or signed (shared/userinfo-response.ts).
import express, { Router, type Request, type Response } from 'express';
import { userinfoClaims } from '../../lib/model/claims.js';
import { findUserById } from '../../lib/store/users.js';
import { relatedClaims } from '../../lib/grants/claim-sources.js';
import { methodNotAllowed, sendError } from '../http/errors.js';
import { requireAccessToken } from './shared/bearer.js';
import { sendUserinfo, type UserinfoResponseDeps } from './shared/userinfo-response.js';
import type { ApiContext } from '../context.js';
import { ENDPOINTS } from '../paths.js';

export type UserinfoDeps = Pick<ApiContext, 'issuer' | 'keyring' | 'store' | 'findClient'> & UserinfoResponseDeps;

export function userinfoRoutes(deps: UserinfoDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  const needOpenid = requireAccessToken(deps, ['openid']);

  const userinfo = async (req: Request, res: Response) => {
    const user = req.access!.user ?? (await findUserById(deps.store, req.access!.userId));
    if (!user) return sendError(res, 401, 'invalid_token', 'the user no longer exists');
    // The same claims the grant's ID token carries (opt-in and team claims included). The client
    // comes from the endpoints' cached lookup: the token check above has just read it uncached.
    const client = await deps.findClient(req.access!.clientId);
    const related = client ? await relatedClaims(deps.store, client, user._id, req.access!.scope) : {};
    await sendUserinfo(res, deps, client, { ...userinfoClaims(user, req.access!.scope, req.access!.userinfoClaims), ...related });
  };
  router.get(ENDPOINTS.userinfo, needOpenid, userinfo);
  router.post(ENDPOINTS.userinfo, form, needOpenid, userinfo);
  router.all(ENDPOINTS.userinfo, methodNotAllowed(['GET', 'POST']));
  return router;
}
