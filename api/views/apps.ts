// The "your apps" pages: the list with the new-app form, an app's edit form,
// and a new client secret shown once.
import type { Response } from 'express';
import type { ClientDoc } from '../../lib/model/clients.js';
import type { RedirectUriEntry } from '../../lib/model/redirect-uri.js';
import { ACCESS_TOKEN_ALG_HINT, ID_TOKEN_ALG_HINT } from '../../lib/model/algorithm-notes.js';
import type { SigningAlg } from '../../lib/model/signing-keys.js';
import { html, type SafeHtml } from '../html/html.js';
import { csrfField, sendPage } from '../html/layout.js';
import { confirmedAction } from '../html/confirm.js';
import { copyable } from '../html/copyable.js';
import { accountShell } from './account-nav.js';
import type { SignedIn } from '../http/signed-in.js';
import { PAGES } from '../paths.js';

/** A select of signing algorithms (`offered`), `chosen` selected; `none` names the empty choice (the default) when given. */
function algSelect(id: string, name: string, offered: readonly SigningAlg[], chosen: string, none?: string): SafeHtml {
  return html`<select id="${id}" name="${name}" aria-describedby="${id}-hint">
${none ? html`<option value=""${chosen === '' ? ' selected' : ''}>${none}</option>` : ''}
${offered.map((a) => html`<option value="${a}"${a === chosen ? ' selected' : ''}>${a}</option>`)}
</select>`;
}

/** The ID token and access token signature fields of the app forms, with what each choice means. */
function algFields(prefix: string, offered: readonly SigningAlg[], idToken: string, accessToken: string): SafeHtml {
  return html`<label for="${prefix}-id-alg">ID token signature</label>
${algSelect(`${prefix}-id-alg`, 'id_token_alg', offered, idToken)}
<p class="muted" id="${prefix}-id-alg-hint">${ID_TOKEN_ALG_HINT}</p>
<label for="${prefix}-at-alg">Access token signature</label>
${algSelect(`${prefix}-at-alg`, 'access_token_alg', offered, accessToken, 'Default (RS256)')}
<p class="muted" id="${prefix}-at-alg-hint">${ACCESS_TOKEN_ALG_HINT}</p>`;
}

/** A redirect URI entry as the edit form shows it: `wildcard: …` and `regex: …` name their match type. */
const entryLine = (e: RedirectUriEntry) => (e.type === 'equals' ? e.value : `${e.type}: ${e.value}`);

export function appsPage(res: Response, signed: SignedIn, apps: ClientDoc[], offered: readonly SigningAlg[], notice?: SafeHtml, status = 200): void {
  const { session } = signed;
  sendPage(res, {
    title: 'Your apps',
    shell: accountShell(signed, PAGES.apps),
    status,
    body: html`<h1>Your apps</h1>
${notice ?? ''}
${apps.length === 0 ? html`<p class="muted">No apps yet.</p>` : ''}
<ul>${apps.map(
      (a) => html`<li><strong>${a.name}</strong> ${a.isVerified ? html`<span class="badge">Verified</span>` : ''}
${a.deactivatedAt ? html`<span class="badge" title="A site administrator deactivated this app: it cannot sign anyone in">Deactivated</span>` : ''}
<p><span class="muted">client_id</span> ${copyable(a._id, `client ID of ${a.name}`)} <span class="muted">${a.public ? 'public' : a.tokenEndpointAuthMethod}</span></p>
<p class="muted">${a.redirectUris.map((r) => `${r.type === 'equals' ? '' : `${r.type}: `}${r.value}`).join(', ') || 'no redirect URI: register one before signing in with this app'}</p>
<a href="${PAGES.apps}/${a._id}/edit">Edit</a>
${
  a.secretHash
    ? confirmedAction({
        csrf: session.csrf,
        action: `${PAGES.apps}/${a._id}/secret`,
        label: 'New secret',
        question: 'The current secret stops working at once; the new one is shown once.',
        confirm: 'Yes, make a new secret',
      })
    : ''
}
${confirmedAction({
  csrf: session.csrf,
  action: `${PAGES.apps}/${a._id}/delete`,
  label: 'Delete',
  question: html`<strong>${a.name}</strong> is deleted with its tokens and consents; nobody can sign in to it any more.`,
  confirm: `Yes, delete ${a.name}`,
})}</li>`,
    )}</ul>
<section><h2>New app</h2>
<form method="post" action="${PAGES.apps}">
${csrfField(session.csrf)}
<label for="app-name">Name</label>
<input id="app-name" name="name" type="text" maxlength="200" required>
<label for="app-redirects">Redirect URIs (one per line)</label>
<textarea id="app-redirects" name="redirect_uris" rows="3" placeholder="https://app.example/callback"></textarea>
<label><input type="checkbox" name="public" value="1"> Public client (no secret; PKCE)</label>
${algFields('app', offered, offered[0] ?? 'RS256', '')}
<button type="submit">Create app</button>
</form>
</section>`,
  });
}

export function secretPage(res: Response, name: string, clientId: string, secret: string | null, title: string, notes: string[] = []): void {
  sendPage(res, {
    title,
    body: html`<h1>${title}</h1>
<p><strong>${name}</strong></p>
<p><span class="muted">client_id</span> <code data-client-id>${clientId}</code></p>
${secret ? html`<p>Client secret — copy it now, it is shown only once:</p><p><code class="secret" data-client-secret>${secret}</code></p>` : html`<p>A public client has no secret.</p>`}
${notes.map((n) => html`<p class="notice" data-note>${n} <a href="${PAGES.apps}/${clientId}/edit">Change it</a>.</p>`)}
<p><a href="${PAGES.apps}">Done</a></p>`,
  });
}

export function editPage(res: Response, signed: SignedIn, app: ClientDoc, offered: readonly SigningAlg[], notice?: SafeHtml, status = 200): void {
  const { session } = signed;
  sendPage(res, {
    title: `Edit ${app.name}`,
    shell: accountShell(signed, PAGES.apps),
    status,
    body: html`<h1>Edit ${app.name}</h1>
${notice ?? ''}
<form method="post" action="${PAGES.apps}/${app._id}/edit">
${csrfField(session.csrf)}
<label for="edit-name">Name</label>
<input id="edit-name" name="name" type="text" maxlength="200" required value="${app.name}">
<label for="edit-description">Description</label>
<input id="edit-description" name="description" type="text" maxlength="2000" value="${app.description}">
<label for="edit-redirects">Redirect URIs (one per line; "wildcard: …" or "regex: …" for other match types)</label>
<textarea id="edit-redirects" name="redirect_uris" rows="4">${app.redirectUris.map(entryLine).join('\n')}</textarea>
<label for="edit-logout">Post-logout redirect URIs (one per line)</label>
<textarea id="edit-logout" name="post_logout_redirect_uris" rows="2">${app.postLogoutRedirectUris.join('\n')}</textarea>
<label for="edit-bcl">Back-channel logout URI</label>
<input id="edit-bcl" name="backchannel_logout_uri" type="url" maxlength="2048" value="${app.backchannelLogoutUri ?? ''}">
${algFields('edit', offered, app.idTokenSignedResponseAlg, app.accessTokenSignedResponseAlg ?? '')}
<button type="submit">Save</button>
</form>
<p><a href="${PAGES.apps}">Back to your apps</a></p>`,
  });
}
