// UserInfo (OIDC Core §5.3), GET and POST, and the profile API of /api/oauth/me.
import express, { Router, type Request, type Response } from 'express';
import { SCOPE_CLAIMS, standardClaims, userinfoClaims } from '../../lib/domain/claims.js';
import { zodProblems } from '../../lib/domain/errors.js';
import { ProfileUpdate } from '../../lib/domain/users.js';
import { findUserById, updateProfile } from '../../lib/store/users.js';
import { relatedClaims } from '../oauth/claim-sources.js';
import { methodNotAllowed, sendError } from '../http/errors.js';
import { requireAccessToken } from './shared/bearer.js';
import { sendUserinfo, type UserinfoResponseDeps } from './shared/userinfo-response.js';
import { tokenActor } from '../../lib/webhooks/event-sources.js';
import type { ApiContext } from '../context.js';

/** `events`: profile.updated goes to the user's webhooks. */
export type UserinfoDeps = Pick<ApiContext, 'issuer' | 'keyring' | 'store' | 'events' | 'findClient'> & UserinfoResponseDeps;

/** The claims the profile API answers with: those a profile change can touch (the profile, address and phone scopes' claims). */
const PROFILE_ANSWER = [...SCOPE_CLAIMS.profile, ...SCOPE_CLAIMS.address, ...SCOPE_CLAIMS.phone];

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
  router.get('/api/oauth/userinfo', needOpenid, userinfo);
  router.post('/api/oauth/userinfo', form, needOpenid, userinfo);
  router.all('/api/oauth/userinfo', methodNotAllowed(['GET', 'POST']));

  router.patch('/api/oauth/me/profile', express.json({ limit: '16kb' }), requireAccessToken(deps, ['profile:write']), async (req, res) => {
    const parsed = ProfileUpdate.safeParse(req.body ?? {});
    if (!parsed.success) return sendError(res, 400, 'invalid_request', zodProblems(parsed.error.issues).join('; '));
    const result = await updateProfile(deps.store, req.access!.userId, parsed.data);
    if (!result) return sendError(res, 401, 'invalid_token', 'the user no longer exists');
    if (result.changed.length)
      await deps.events.user('profile.updated', result.user._id, { user_id: result.user._id, changed: result.changed }, tokenActor(req));
    res.set('Cache-Control', 'no-store').json({ sub: result.user._id, ...standardClaims(result.user, PROFILE_ANSWER) });
  });
  return router;
}
