// The change-password page (with the captcha when the sign-in limits ask for
// it) and the page after the change.
import type { Response } from 'express';
import { html, type SafeHtml } from '../html/html.js';
import { csrfField, sendPage } from '../html/layout.js';
import type { SignedIn } from '../http/signed-in.js';

export const PASSWORD_PAGE = '/account/password';

export interface PasswordPageOptions {
  error?: string;
  status?: number;
  captcha?: SafeHtml | null;
}

export function passwordPage(res: Response, { session, user }: SignedIn, opts: PasswordPageOptions = {}): void {
  const captcha = opts.captcha ?? null;
  sendPage(res, {
    title: 'Change your password',
    status: opts.status,
    scripts: captcha ? ['captcha.js'] : [],
    body: html`<h1>Change your password</h1>
${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ''}
<form method="post" action="${PASSWORD_PAGE}">
${csrfField(session.csrf)}
<input type="text" name="username" autocomplete="username" value="${user.email}" hidden>
<label for="current">Current password</label>
<input id="current" name="current" type="password" autocomplete="current-password" required>
<label for="new-password">New password</label>
<input id="new-password" name="password" type="password" autocomplete="new-password" minlength="12" required>
<p class="muted">At least 12 characters. A few unrelated words make a good one; common and leaked passwords are refused.</p>
<label for="confirm">New password again</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="12" required>
${captcha ?? ''}
<button type="submit">Change password</button>
</form>
<p class="muted">Your other sessions will be signed out.</p>
<p><a href="/account">Back to your account</a></p>`,
  });
}

/** `ended`: how many other sessions the change signed out. */
export function passwordChangedPage(res: Response, ended: number): void {
  sendPage(res, {
    title: 'Password changed',
    body: html`<h1>Password changed</h1>
<p>Your password is changed.${ended ? ` ${ended === 1 ? 'Your other session was' : `Your ${ended} other sessions were`} signed out.` : ''}</p>
<p><a href="/account">Back to your account</a></p>`,
  });
}
