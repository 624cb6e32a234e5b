// /admin/sources: the OAuth sources (Sign in with …), the form that adds one,
// and one source's edit and remove forms. The client secret is write-only: a
// field that sets or replaces it, never its value.
import type { Response } from 'express';
import type { OAuthSourceDoc } from '../../../lib/model/oauth-sources.js';
import { html, type SafeHtml } from '../../html/html.js';
import { csrfField } from '../../html/layout.js';
import { checked, option } from '../teams.js';
import { adminPage } from './layout.js';
import { ADMIN_PAGES, PAGES } from '../../paths.js';

export const adminSourcePath = (id: string) => `${ADMIN_PAGES.sources}/${encodeURIComponent(id)}`;

/** What a source form shows: a source's settings, or what was sent when it was refused. */
export interface SourceDraft {
  name: string;
  slug: string;
  kind: string;
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint: string;
  client_id: string;
  /** Space-separated. */
  scopes: string;
  allow_sign_up: boolean;
  link_by_verified_email: boolean;
  enabled: boolean;
}

export const NEW_SOURCE: SourceDraft = {
  name: '',
  slug: '',
  kind: 'oidc',
  issuer: '',
  authorization_endpoint: '',
  token_endpoint: '',
  userinfo_endpoint: '',
  client_id: '',
  scopes: 'openid email profile',
  allow_sign_up: false,
  link_by_verified_email: false,
  enabled: true,
};

export const draftOf = (s: OAuthSourceDoc): SourceDraft => ({
  name: s.name,
  slug: s.slug,
  kind: s.kind,
  issuer: s.issuer ?? '',
  authorization_endpoint: s.authorizationEndpoint ?? '',
  token_endpoint: s.tokenEndpoint ?? '',
  userinfo_endpoint: s.userinfoEndpoint ?? '',
  client_id: s.clientId,
  scopes: s.scopes.join(' '),
  allow_sign_up: s.allowSignUp,
  link_by_verified_email: s.linkByVerifiedEmail,
  enabled: s.enabled,
});

const URL_FIELDS = [
  ['issuer', 'Issuer (an oidc source: discovery from here)'],
  ['authorization_endpoint', 'Authorization endpoint (an oauth2 source)'],
  ['token_endpoint', 'Token endpoint (an oauth2 source)'],
  ['userinfo_endpoint', 'UserInfo endpoint (an oauth2 source)'],
] as const;

/**
 * The form's fields. `secretSet` null: a new source (the secret field sets
 * it); else whether the source has one (the field replaces it).
 */
function sourceFields(d: SourceDraft, secretSet: boolean | null): SafeHtml {
  const secret =
    secretSet === null
      ? html`<label for="source-client_secret">Client secret (empty for a public client)</label>
<input id="source-client_secret" name="client_secret" type="password" maxlength="2000" autocomplete="off">`
      : html`<p>Client secret: <strong data-secret-set>${secretSet ? 'set' : 'not set'}</strong> (never shown)</p>
<label for="source-client_secret">New client secret (empty keeps the current one)</label>
<input id="source-client_secret" name="client_secret" type="password" maxlength="2000" autocomplete="off">
${secretSet ? html`<label><input type="checkbox" name="remove_secret" value="1"> Remove the client secret (a public client)</label>` : ''}`;
  return html`<label for="source-name">Name</label>
<input id="source-name" name="name" type="text" maxlength="100" required value="${d.name}">
<label for="source-slug">Slug (in the sign-in URL: lowercase letters, digits, hyphens)</label>
<input id="source-slug" name="slug" type="text" maxlength="40" required value="${d.slug}">
<label for="source-kind">Kind</label>
<select id="source-kind" name="kind">${option('oidc', 'OpenID Connect (oidc)', d.kind === 'oidc')}${option('oauth2', 'OAuth 2.0 (oauth2)', d.kind === 'oauth2')}</select>
${URL_FIELDS.map(([f, label]) => html`<label for="source-${f}">${label}</label><input id="source-${f}" name="${f}" type="url" maxlength="2048" value="${d[f]}">`)}
<label for="source-client_id">Client ID</label>
<input id="source-client_id" name="client_id" type="text" maxlength="500" required value="${d.client_id}">
${secret}
<label for="source-scopes">Scopes (separated by spaces)</label>
<input id="source-scopes" name="scopes" type="text" maxlength="2000" value="${d.scopes}">
<label><input type="checkbox" name="allow_sign_up" value="1"${checked(d.allow_sign_up)}> A first sign-in may create an account</label>
<label><input type="checkbox" name="link_by_verified_email" value="1"${checked(d.link_by_verified_email)}> Link to an existing account with the same verified email</label>
<label><input type="checkbox" name="enabled" value="1"${checked(d.enabled)}> Enabled</label>`;
}

export function adminSourcesPage(res: Response, csrf: string, sources: OAuthSourceDoc[], draft: SourceDraft, notice?: SafeHtml, status = 200): void {
  adminPage(res, {
    title: 'OAuth sources',
    area: ADMIN_PAGES.sources,
    notice,
    status,
    body: html`${sources.length === 0 ? html`<p class="muted">No OAuth sources yet.</p>` : ''}
<ul class="sources">${sources.map(
      (s) => html`<li data-source="${s.slug}"><a href="${adminSourcePath(s._id)}">${s.name}</a> <code>${s.slug}</code> <span class="badge">${s.kind}</span>
${s.enabled ? '' : html`<span class="muted">disabled</span>`}</li>`,
    )}</ul>
<section id="new-source"><h2>Add a source</h2>
<form method="post" action="${ADMIN_PAGES.sources}">
${csrfField(csrf)}
${sourceFields(draft, null)}
<button type="submit">Add source</button>
</form></section>`,
  });
}

export function adminSourcePage(res: Response, csrf: string, source: OAuthSourceDoc, draft: SourceDraft, notice?: SafeHtml, status = 200): void {
  const path = adminSourcePath(source._id);
  adminPage(res, {
    title: source.name,
    area: ADMIN_PAGES.sources,
    notice,
    status,
    body: html`<p><code>${source.slug}</code> · sign-in at <code>${PAGES.sourceSignIn}/${source.slug}</code></p>
<form method="post" action="${path}">
${csrfField(csrf)}
${sourceFields(draft, source.clientSecret !== null)}
<button type="submit">Save source</button>
</form>
<section><h2>Remove this source</h2>
<p>Accounts linked through it are unlinked: their users sign in another way (a password, a passkey, another source) or not at all.</p>
<form method="post" action="${path}/delete">
${csrfField(csrf)}
<label for="remove-confirm">Type <code>${source.slug}</code> to remove the source</label>
<input id="remove-confirm" name="confirm" type="text" maxlength="40" autocomplete="off" required>
<button type="submit">Remove source</button>
</form></section>
<p><a href="${ADMIN_PAGES.sources}">All OAuth sources</a></p>`,
  });
}
