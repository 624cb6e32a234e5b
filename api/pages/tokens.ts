// /account/tokens: the signed-in user's personal access tokens. Create (name,
// scopes from the user-grantable catalogue, a lifetime in days up to
// PAT_MAX_LIFETIME_DAYS; the token is shown once; a recent sign-in needed),
// list, revoke (deletes it). CSRF on every form.
import express, { Router, type Request, type Response } from 'express';
import { zodProblems } from '../../lib/domain/errors.js';
import { SCOPES } from '../../lib/domain/scopes.js';
import { newPersonalAccessTokenSchema, patMaxDays, patScopesFor } from '../../lib/domain/personal-access-tokens.js';
import type { SessionDoc } from '../../lib/domain/sessions.js';
import type { UserDoc } from '../../lib/domain/users.js';
import { capPersonalAccessTokenLifetimes, createPersonalAccessToken, listPersonalAccessTokens, revokePersonalAccessToken } from '../../lib/store/personal-access-tokens.js';
import { findUserById } from '../../lib/store/users.js';
import { html, type SafeHtml } from '../html/html.js';
import { csrfField, sendErrorPage, sendPage } from '../html/layout.js';
import { hasValidCsrf, requireRecentSignIn, type SessionDeps } from '../http/session.js';
import { fieldsOf, formList, formText, raw } from '../http/input.js';
import type { ApiContext } from '../context.js';

export type SignedIn = { session: SessionDoc; user: UserDoc };

/** The signed-in user of a page request, or a redirect to sign-in. */
export async function signedInUser(deps: SessionDeps, req: Request, res: Response): Promise<SignedIn | null> {
  const session = req.kfSession;
  const user = session?.userId ? await findUserById(deps.store, session.userId) : null;
  if (session && user) return { session, user };
  res.redirect(303, '/login');
  return null;
}

/** True when the form carries the session's CSRF token; else an error page is sent. */
export function csrfGuard(req: Request, res: Response, s: SignedIn): boolean {
  if (hasValidCsrf(req, s.session)) return true;
  sendErrorPage(res, 400, 'Session expired', 'Your session expired. Reload the page and try again.');
  return false;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

export interface TokenPageDeps extends Pick<ApiContext, 'store' | 'secureCookies' | 'log' | 'reauthMaxAgeMs'> {
  /** The longest lifetime of a token. */
  patMaxLifetimeMs: number;
}

const TOKENS_PAGE = '/account/tokens';

/** The new-token form; NewToken checks the values. */
const NewTokenForm = fieldsOf({ name: raw, scope: formList, expires_in_days: formText });

export function tokenPageRoutes(deps: TokenPageDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  const maxDays = patMaxDays(deps.patMaxLifetimeMs);
  const NewToken = newPersonalAccessTokenSchema(maxDays);
  // Tokens stored before the cap (or under a longer one) end at the cap from now on.
  capPersonalAccessTokenLifetimes(deps.store, deps.patMaxLifetimeMs).then(
    (capped) => capped && deps.log.info('personal access token lifetimes capped', { tokens: capped, days: maxDays }),
    (err: Error) => deps.log.error('personal access token lifetimes not capped', { error: err.message }),
  );

  async function tokensPage(res: Response, { session, user }: SignedIn, notice?: SafeHtml, status = 200) {
    const tokens = await listPersonalAccessTokens(deps.store, user._id);
    const now = Date.now();
    sendPage(res, {
      title: 'Personal access tokens',
      status,
      body: html`<h1>Personal access tokens</h1>
${notice ?? ''}
<p>A personal access token lets a script use Keyflow's API as you (<code>Authorization: Bearer &lt;token&gt;</code>) with the scopes you choose.</p>
<section><h2>Your tokens</h2>
${tokens.length === 0 ? html`<p class="muted">No tokens yet.</p>` : ''}
<ul>${tokens.map(
        (t) => html`<li><strong>${t.name}</strong> <span class="muted">${t.scope.join(' ')}</span>
<span class="muted">created ${day(t.createdAt)}, ${t.expiresAt ? (t.expiresAt.getTime() <= now ? html`expired ${day(t.expiresAt)}` : html`expires ${day(t.expiresAt)}`) : 'no expiry'}</span>
<form class="inline" method="post" action="/account/tokens/${t.id}/revoke">${csrfField(session.csrf)}<button type="submit" class="secondary">Revoke</button></form></li>`,
      )}</ul>
</section>
<section><h2>New token</h2>
<form method="post" action="/account/tokens">
${csrfField(session.csrf)}
<label for="token-name">Name</label>
<input id="token-name" name="name" type="text" maxlength="100" required>
<fieldset><legend>Scopes</legend>
${patScopesFor(user.role).map(
        (s) => html`<label><input type="checkbox" name="scope" value="${s}"> <code>${s}</code> <span class="muted">${SCOPES[s]?.description ?? ''}</span></label>`,
      )}
</fieldset>
<label for="token-days">Expires after (days, at most ${String(maxDays)})</label>
<input id="token-days" name="expires_in_days" type="number" min="1" max="${String(maxDays)}" value="${String(Math.min(30, maxDays))}" required>
<button type="submit">Create token</button>
</form>
</section>
<p><a href="/account">Back to your account</a></p>`,
    });
  }

  router.get('/account/tokens', async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (s) await tokensPage(res, s);
  });

  router.post('/account/tokens', form, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s) || !requireRecentSignIn(res, s.session, deps.reauthMaxAgeMs, TOKENS_PAGE)) return;
    const body = NewTokenForm.parse(req.body);
    const scope = body.scope;
    const days = body.expires_in_days.trim();
    const parsed = NewToken.safeParse({ name: body.name, scope, expiresInDays: days === '' ? undefined : Number(days) });
    const allowed = patScopesFor(s.user.role);
    const refused = scope.filter((x) => !allowed.includes(x));
    const problems = [...(parsed.success ? [] : zodProblems(parsed.error.issues)), ...(refused.length ? [`scope: not available: ${refused.join(' ')}`] : [])];
    if (!parsed.success || problems.length) {
      return tokensPage(res, s, html`<p class="error" role="alert">${problems.join('; ')}</p>`, 400);
    }
    const { token, doc } = await createPersonalAccessToken(deps.store, s.user._id, parsed.data);
    sendPage(res, {
      title: 'Your new token',
      body: html`<h1>Your new token</h1>
<p>Copy the token <strong>${doc.name}</strong> now. It is shown only once; Keyflow keeps only its hash.</p>
<p><code class="secret" data-token>${token}</code></p>
<p class="muted">Scopes: ${doc.scope.join(' ')}. Expires ${day(doc.expiresAt!)}.</p>
<p><a href="/account/tokens">Done</a></p>`,
    });
  });

  router.post('/account/tokens/:id/revoke', form, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s)) return;
    await revokePersonalAccessToken(deps.store, s.user._id, String(req.params.id));
    res.redirect(303, '/account/tokens');
  });

  return router;
}
