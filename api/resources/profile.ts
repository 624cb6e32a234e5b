// The profile API: PATCH /api/oauth/me/profile (`profile:write`) changes the
// token user's profile (name, picture and the standard claims by claim name)
// and answers with the claims a profile change can touch.
import express, { Router } from 'express';
import { SCOPE_CLAIMS, standardClaims } from '../../lib/model/claims.js';
import { zodProblems } from '../../lib/model/errors.js';
import { ProfileUpdate } from '../../lib/model/users.js';
import { changeProfile } from '../../lib/accounts/profile-changes.js';
import { tokenActor } from '../../lib/webhooks/event-sources.js';
import { sendError } from '../http/errors.js';
import { requireAccessToken } from '../protocol/shared/bearer.js';
import type { ApiContext } from '../context.js';
import { RESOURCES } from '../paths.js';

/** `events`: profile.updated goes to the user's webhooks. */
export type ProfileDeps = Pick<ApiContext, 'issuer' | 'keyring' | 'store' | 'events' | 'audit'>;

/** The claims the profile API answers with: those a profile change can touch (the profile, address and phone scopes' claims). */
const PROFILE_ANSWER = [...SCOPE_CLAIMS.profile, ...SCOPE_CLAIMS.address, ...SCOPE_CLAIMS.phone];

export function profileRoutes(deps: ProfileDeps): Router {
  const router = Router();
  router.patch(RESOURCES.profile, express.json({ limit: '16kb' }), requireAccessToken(deps, ['profile:write']), async (req, res) => {
    const parsed = ProfileUpdate.safeParse(req.body ?? {});
    if (!parsed.success) return sendError(res, 400, 'invalid_request', zodProblems(parsed.error.issues).join('; '));
    const result = await changeProfile(deps, req.access!.userId, parsed.data, tokenActor(req));
    if (!result) return sendError(res, 401, 'invalid_token', 'the user no longer exists');
    res.set('Cache-Control', 'no-store').json({ sub: result.user._id, ...standardClaims(result.user, PROFILE_ANSWER) });
  });
  return router;
}
