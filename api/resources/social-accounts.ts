// The user's social accounts ("Sign in with …" links) at
// /api/oauth/me/social_accounts: `social:read` lists them, `social:write`
// unlinks one. Another user's account is 404; unlinking the last way to sign
// in is 409.
import { Router } from 'express';
import { socialAccountJson, type SocialAccountDoc } from '../../lib/model/oauth-sources.js';
import { LAST_WAY, unlinkSocialAccount } from '../../lib/sources/linking.js';
import { socialAccountsOf } from '../../lib/store/oauth-sources.js';
import { findUserById } from '../../lib/store/users.js';
import { sendError } from '../http/errors.js';
import { requireAccessToken } from '../protocol/shared/bearer.js';
import type { ApiContext } from '../context.js';
import { RESOURCES } from '../paths.js';

const BASE = RESOURCES.socialAccounts;

export type SocialAccountsApiDeps = Pick<ApiContext, 'issuer' | 'keyring' | 'store'>;

export const socialAccountBody = (a: SocialAccountDoc) => ({ ...socialAccountJson(a), linked_at: a.linkedAt.toISOString() });

export function socialAccountsApiRoutes(deps: SocialAccountsApiDeps): Router {
  const router = Router();

  router.get(BASE, requireAccessToken(deps, ['social:read']), async (req, res) => {
    const accounts = await socialAccountsOf(deps.store, req.access!.userId);
    res.set('Cache-Control', 'no-store').json({ social_accounts: accounts.map(socialAccountBody) });
  });

  router.delete(`${BASE}/:id`, requireAccessToken(deps, ['social:write']), async (req, res) => {
    const id = String(req.params.id ?? '');
    const user = await findUserById(deps.store, req.access!.userId);
    const result = user && id.length <= 100 ? await unlinkSocialAccount(deps.store, user, id) : 'not_found';
    if (result === 'not_found') return sendError(res, 404, 'not_found', 'no such social account');
    if (result === 'last_way') return sendError(res, 409, 'conflict', LAST_WAY);
    res.status(204).end();
  });

  return router;
}
