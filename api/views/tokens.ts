// The personal access tokens page (the user's tokens and the new-token form)
// and the page that shows a new token once.
import type { Response } from 'express';
import { catalogued } from '../../lib/model/scopes.js';
import { patScopesFor, type PersonalAccessTokenDoc } from '../../lib/model/personal-access-tokens.js';
import { html, type SafeHtml } from '../html/html.js';
import { csrfField, sendPage } from '../html/layout.js';
import { confirmedAction } from '../html/confirm.js';
import { accountShell } from './account-nav.js';
import type { SignedIn } from '../http/signed-in.js';
import { PAGES } from '../paths.js';
import { currentTimeMs } from '../../lib/runtime/clock.js';

const day = (d: Date) => d.toISOString().slice(0, 10);

export function tokensPage(
  res: Response,
  signed: SignedIn,
  { tokens, maxDays }: { tokens: PersonalAccessTokenDoc[]; maxDays: number },
  notice?: SafeHtml,
  status = 200,
): void {
  const { session, user } = signed;
  const now = currentTimeMs();
  sendPage(res, {
    title: 'Personal access tokens',
    shell: accountShell(signed, PAGES.tokens),
    status,
    body: html`<h1>Personal access tokens</h1>
${notice ?? ''}
<p>A personal access token lets a script use Keyflow's API as you (<code>Authorization: Bearer &lt;token&gt;</code>) with the scopes you choose.</p>
<section><h2>Your tokens</h2>
${tokens.length === 0 ? html`<p class="muted">No tokens yet.</p>` : ''}
<ul>${tokens.map(
      (t) => html`<li><strong>${t.name}</strong> <span class="muted">${t.scope.join(' ')}</span>
<span class="muted">created ${day(t.createdAt)}, ${t.expiresAt ? (t.expiresAt.getTime() <= now ? html`expired ${day(t.expiresAt)}` : html`expires ${day(t.expiresAt)}`) : 'no expiry'}</span>
${confirmedAction({
  csrf: session.csrf,
  action: `${PAGES.tokens}/${t.id}/revoke`,
  label: 'Revoke',
  question: html`Scripts using <strong>${t.name}</strong> stop working at once.`,
  confirm: 'Yes, revoke the token',
})}</li>`,
    )}</ul>
</section>
<section><h2>New token</h2>
<form method="post" action="${PAGES.tokens}">
${csrfField(session.csrf)}
<label for="token-name">Name</label>
<input id="token-name" name="name" type="text" maxlength="100" required>
<fieldset><legend>Scopes</legend>
${patScopesFor(user.role).map(
  (s) =>
    html`<label><input type="checkbox" name="scope" value="${s}"> <code>${s}</code> <span class="muted">${catalogued(s)?.description ?? ''}</span></label>`,
)}
</fieldset>
<label for="token-days">Expires after (days, at most ${String(maxDays)})</label>
<input id="token-days" name="expires_in_days" type="number" min="1" max="${String(maxDays)}" value="${String(Math.min(30, maxDays))}" required>
<button type="submit">Create token</button>
</form>
</section>`,
  });
}

export function newTokenPage(res: Response, token: string, doc: Pick<PersonalAccessTokenDoc, 'name' | 'scope' | 'expiresAt'>): void {
  sendPage(res, {
    title: 'Your new token',
    body: html`<h1>Your new token</h1>
<p>Copy the token <strong>${doc.name}</strong> now. It is shown only once; Keyflow keeps only its hash.</p>
<p><code class="secret" data-token>${token}</code></p>
<p class="muted">Scopes: ${doc.scope.join(' ')}. Expires ${day(doc.expiresAt!)}.</p>
<p><a href="${PAGES.tokens}">Done</a></p>`,
  });
}
