// The change-password page (with the captcha when the sign-in limits ask for
// it) and the page after the change. An account without a usable password
// sees "Set a password" instead, without the current-password field.
import type { Response } from 'express';
import { hasUsablePassword } from '../../lib/store/passwordless-users.js';
import { html, type SafeHtml } from '../html/html.js';
import { csrfField, sendPage } from '../html/layout.js';
import { accountShell } from './account-nav.js';
import type { SignedIn } from '../http/signed-in.js';
import { PAGES } from '../paths.js';

export interface PasswordPageOptions {
  error?: string;
  status?: number;
  captcha?: SafeHtml | null;
}

export function passwordPage(res: Response, signed: SignedIn, opts: PasswordPageOptions = {}): void {
  const { session, user } = signed;
  const captcha = opts.captcha ?? null;
  const first = !hasUsablePassword(user);
  const title = first ? 'Set a password' : 'Change your password';
  sendPage(res, {
    title,
    shell: accountShell(signed, PAGES.security),
    status: opts.status,
    scripts: captcha ? ['captcha.js'] : [],
    body: html`<h1>${title}</h1>
${first ? html`<p>Your account has no password yet: you sign in with a linked account or a passkey. A password is one more way to sign in.</p>` : ''}
${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ''}
<form method="post" action="${PAGES.password}">
${csrfField(session.csrf)}
<input type="text" name="username" autocomplete="username" value="${user.email}" hidden>
${
  first
    ? ''
    : html`<label for="current">Current password</label>
<input id="current" name="current" type="password" autocomplete="current-password" required>`
}
<label for="new-password">New password</label>
<input id="new-password" name="password" type="password" autocomplete="new-password" minlength="12" required>
<p class="muted">At least 12 characters. A few unrelated words make a good one; common and leaked passwords are refused.</p>
<label for="confirm">New password again</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="12" required>
${captcha ?? ''}
<button type="submit">${first ? 'Set password' : 'Change password'}</button>
</form>
<p class="muted">Your other sessions will be signed out.</p>`,
  });
}

/** `ended`: how many other sessions the change signed out; `first`: the account had no password before. */
export function passwordChangedPage(res: Response, ended: number, first = false): void {
  const title = first ? 'Password set' : 'Password changed';
  sendPage(res, {
    title,
    body: html`<h1>${title}</h1>
<p>Your password is ${first ? 'set: you can now sign in with your email and it' : 'changed'}.${ended ? ` ${ended === 1 ? 'Your other session was' : `Your ${ended} other sessions were`} signed out.` : ''}</p>
<p><a href="${PAGES.account}">Back to your account</a></p>`,
  });
}
