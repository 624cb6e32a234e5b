// /account/tokens: the signed-in user's personal access tokens. Create (name,
// scopes from the user-grantable catalogue, a lifetime in days up to
// PAT_MAX_LIFETIME_DAYS; the token is shown once; a recent sign-in needed),
// list, revoke (deletes it). CSRF on every form.
import { doneAt, doneNotice } from '../http/done.js';
import express, { Router, type Response } from 'express';
import { checkedNewToken, patMaxDays } from '../../lib/model/personal-access-tokens.js';
import { capPersonalAccessTokenLifetimes, listPersonalAccessTokens } from '../../lib/store/personal-access-tokens.js';
import { makePersonalAccessToken, revokeOwnPersonalAccessToken } from '../../lib/accounts/personal-access-token-changes.js';
import { html, type SafeHtml } from '../html/html.js';
import { csrfGuard, signedInUser, type SignedIn } from '../http/signed-in.js';
import { newTokenPage, tokensPage as tokensPageView } from '../views/tokens.js';
import { requireRecentSignIn } from '../http/session.js';
import { fieldsOf, formList, formText, raw } from '../http/input.js';
import type { ApiContext } from '../context.js';
import { PAGES } from '../paths.js';

export interface TokenPageDeps extends Pick<ApiContext, 'store' | 'secureCookies' | 'log' | 'reauthMaxAgeMs' | 'audit'> {
  /** The longest lifetime of a token. */
  patMaxLifetimeMs: number;
}

/** The new-token form; NewToken checks the values. */
const NewTokenForm = fieldsOf({ name: raw, scope: formList, expires_in_days: formText });

/** What the page says after a change (`?done=`). */
const TOKEN_DONE: Readonly<Record<string, string>> = { revoked: 'The token is revoked: it no longer works.' };

export function tokenPageRoutes(deps: TokenPageDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  const maxDays = patMaxDays(deps.patMaxLifetimeMs);
  // Tokens stored before the cap (or under a longer one) end at the cap from now on.
  capPersonalAccessTokenLifetimes(deps.store, deps.patMaxLifetimeMs).then(
    (capped) => capped && deps.log.info('personal access token lifetimes capped', { capped, days: maxDays }),
    (err: Error) => deps.log.error('personal access token lifetimes not capped', { error: err.message }),
  );

  async function tokensPage(res: Response, s: SignedIn, notice?: SafeHtml, status = 200): Promise<void> {
    tokensPageView(res, s, { tokens: await listPersonalAccessTokens(deps.store, s.user._id), maxDays }, notice, status);
  }

  router.get(PAGES.tokens, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (s) await tokensPage(res, s, doneNotice(req, TOKEN_DONE));
  });

  router.post(PAGES.tokens, form, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s) || !requireRecentSignIn(res, s.session, deps.reauthMaxAgeMs, PAGES.tokens)) return;
    const body = NewTokenForm.parse(req.body);
    const scope = body.scope;
    const days = body.expires_in_days.trim();
    const checked = checkedNewToken(s.user.role, maxDays, { name: body.name, scope, expiresInDays: days === '' ? undefined : Number(days) });
    if (!checked.ok) return tokensPage(res, s, html`<p class="error" role="alert">${checked.problems.join('; ')}</p>`, 400);
    const { token, doc } = await makePersonalAccessToken(deps, s.user._id, checked.input, { type: 'user', userId: s.user._id });
    newTokenPage(res, token, doc);
  });

  router.post(`${PAGES.tokens}/:id/revoke`, form, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s)) return;
    const revoked = await revokeOwnPersonalAccessToken(deps, s.user._id, String(req.params.id), { type: 'user', userId: s.user._id });
    res.redirect(303, revoked ? doneAt(PAGES.tokens, 'revoked') : PAGES.tokens);
  });

  return router;
}
