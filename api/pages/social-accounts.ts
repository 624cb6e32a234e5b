// /account/social: the signed-in user's linked accounts, unlink (refused for
// the last way to sign in) and link (POST /account/social/link/:slug, in
// social-sign-in.ts, goes upstream and comes back here). CSRF on every form.
import express, { Router, type Response } from 'express';
import { LAST_WAY, unlinkSocialAccount } from '../../lib/sources/linking.js';
import { enabledSources, socialAccountsOf } from '../../lib/store/oauth-sources.js';
import { csrfGuard, signedInUser, type SignedIn } from '../http/signed-in.js';
import { fieldsOf, text } from '../http/input.js';
import { socialAccountsPage, type SocialPageOptions } from '../views/social.js';
import type { ApiContext } from '../context.js';
import { PAGES } from '../paths.js';

export type SocialAccountsPageDeps = Pick<ApiContext, 'store' | 'secureCookies'>;

const LinkedQuery = fieldsOf({ linked: text });

export function socialAccountsPageRoutes(deps: SocialAccountsPageDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '4kb' });

  async function page(res: Response, s: SignedIn, opts: SocialPageOptions = {}) {
    socialAccountsPage(res, s, await socialAccountsOf(deps.store, s.user._id), await enabledSources(deps.store), opts);
  }

  router.get(PAGES.social, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (s) await page(res, s, LinkedQuery.parse(req.query).linked === '1' ? { notice: 'The account is linked.' } : {});
  });

  router.post(`${PAGES.social}/:id/unlink`, form, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s)) return;
    const id = String(req.params.id ?? '');
    const result = id.length <= 100 ? await unlinkSocialAccount(deps.store, s.user, id) : 'not_found';
    if (result === 'not_found') return page(res, s, { error: 'No such linked account.', status: 404 });
    if (result === 'last_way') return page(res, s, { error: LAST_WAY, status: 409 });
    await page(res, s, { notice: 'The account is unlinked.' });
  });

  return router;
}
