// The sign-in pages: the password form (with the passkey button, when the
// limits ask for it the captcha, and the card of the client whose request it
// serves) and the second-factor form.
import type { Response } from 'express';
import { html, type SafeHtml } from '../html/html.js';
import { csrfField, sendPage } from '../html/layout.js';
import { clientCard, type ClientBranding } from './client-card.js';
import { PAGES } from '../paths.js';

export interface LoginPageOptions {
  email?: string;
  /** Re-authentication of the signed-in user: the email is fixed. */
  reauth?: boolean;
  error?: string;
  status?: number;
  /** The captcha's fields, when the form must carry them. */
  captcha?: SafeHtml | null;
  /** Enabled OAuth sources: a "Sign in with <name>" button each. */
  sources?: { slug: string; name: string }[];
  /** Where "Create an account" leads (views/signup.ts signupHref), or null when sign-up is not offered. */
  signup?: string | null;
  /** The client of the authorization request this sign-in serves: its card is shown. */
  client?: ClientBranding | null;
}

function sourceButtons(sources: { slug: string; name: string }[], requestId: string | null): SafeHtml | string {
  if (sources.length === 0) return '';
  const query = requestId ? `?request=${encodeURIComponent(requestId)}` : '';
  return html`<ul class="sources">${sources.map((s) => html`<li><a class="button secondary" href="${PAGES.sourceSignIn}/${s.slug}${query}">Sign in with ${s.name}</a></li>`)}</ul>`;
}

/** The sign-in form (email and password, or a passkey); `requestId` is the authorization request or page to return to. */
export function loginPage(res: Response, csrf: string, requestId: string | null, opts: LoginPageOptions = {}): void {
  const card = opts.client ? clientCard(opts.client, 'to continue to ') : null;
  sendPage(res, {
    title: 'Sign in',
    status: opts.status,
    scripts: ['simplewebauthn-browser.js', 'webauthn.js', ...(opts.captcha ? ['captcha.js'] : [])],
    imgOrigin: card?.imgOrigin,
    body: html`<h1>Sign in</h1>
${card?.html ?? ''}
${opts.reauth ? html`<p>This change needs a recent sign-in. Sign in again to continue.</p>` : ''}
${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ''}
<form method="post" action="${PAGES.login}">
${csrfField(csrf)}
${requestId ? html`<input type="hidden" name="request" value="${requestId}">` : ''}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username webauthn" required value="${opts.email ?? ''}"${opts.reauth ? html` readonly` : ''}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
${opts.captcha ?? ''}
<button type="submit">Sign in</button>
</form>
<p><button type="button" class="secondary" data-webauthn="login" data-csrf="${csrf}" data-options="${PAGES.loginPasskeyOptions}" data-verify="${PAGES.loginPasskey}" data-request="${requestId ?? ''}">Sign in with a passkey</button></p>
<p class="error" role="alert" data-webauthn-error hidden></p>
${sourceButtons(opts.sources ?? [], requestId)}
${opts.signup ? html`<p><a href="${opts.signup}">Create an account</a></p>` : ''}
${opts.client && requestId ? cancelForm(csrf, requestId, opts.client.name) : ''}`,
  });
}

/** For an authorization request: give up signing in, and the application is told the user refused (access_denied). */
function cancelForm(csrf: string, requestId: string, clientName: string): SafeHtml {
  return html`<form method="post" action="${PAGES.loginCancel}">
${csrfField(csrf)}
<input type="hidden" name="request" value="${requestId}">
<button type="submit" class="secondary">Cancel and return to ${clientName}</button>
</form>`;
}

/** The second step of a sign-in: an authentication code, or a passkey when the user has one. */
export function secondFactorPage(res: Response, csrf: string, requestId: string | null, opts: { error?: string; status?: number; passkeys: boolean }): void {
  sendPage(res, {
    title: 'Two-step verification',
    status: opts.status,
    scripts: ['simplewebauthn-browser.js', 'webauthn.js'],
    body: html`<h1>Two-step verification</h1>
${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ''}
<form method="post" action="${PAGES.secondFactor}">
${csrfField(csrf)}
${requestId ? html`<input type="hidden" name="request" value="${requestId}">` : ''}
<label for="code">Authentication code</label>
<input id="code" name="code" type="text" inputmode="text" autocomplete="one-time-code" required maxlength="20">
<p class="muted">The 6-digit code from your authenticator app, or one of your backup codes.</p>
<button type="submit">Verify</button>
</form>
${opts.passkeys ? html`<p><button type="button" class="secondary" data-webauthn="second-factor" data-csrf="${csrf}" data-options="${PAGES.secondFactorPasskeyOptions}" data-verify="${PAGES.secondFactorPasskey}" data-request="${requestId ?? ''}">Use a passkey</button></p>` : ''}
<p class="error" role="alert" data-webauthn-error hidden></p>`,
  });
}

export function signedOutPage(res: Response): void {
  sendPage(res, { title: 'Signed out', body: html`<h1>You are signed out</h1><p><a href="${PAGES.login}">Sign in again</a></p>` });
}
