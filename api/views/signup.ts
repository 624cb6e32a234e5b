// The sign-up pages: the form (email, username, name, password twice), and the
// page that says why signing up is not possible here.
import type { Response } from 'express';
import { html } from '../html/html.js';
import { csrfField, sendPage } from '../html/layout.js';
import { PAGES } from '../paths.js';

export interface SignupFormOptions {
  /** The invitation token from the link, carried in a hidden field. */
  invite: string | null;
  /** The authorization request or page to return to once signed up. */
  requestId: string | null;
  /** An invitation bound to an address: the email field shows it, fixed. */
  fixedEmail?: string | null;
  values?: { email?: string; username?: string; name?: string };
  errors?: string[];
  status?: number;
}

const loginHref = (requestId: string | null) => `${PAGES.login}${requestId ? `?request=${encodeURIComponent(requestId)}` : ''}`;

export function signupPage(res: Response, csrf: string, opts: SignupFormOptions): void {
  const v = opts.values ?? {};
  const errors = opts.errors ?? [];
  const email = opts.fixedEmail ?? v.email ?? '';
  sendPage(res, {
    title: 'Create an account',
    status: opts.status,
    body: html`<h1>Create an account</h1>
${errors.length ? html`<div class="error" role="alert"><p>The account could not be created:</p><ul>${errors.map((e) => html`<li>${e}</li>`)}</ul></div>` : ''}
<form method="post" action="${PAGES.signup}">
${csrfField(csrf)}
${opts.invite ? html`<input type="hidden" name="invite" value="${opts.invite}">` : ''}
${opts.requestId ? html`<input type="hidden" name="request" value="${opts.requestId}">` : ''}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${email}"${opts.fixedEmail ? html` readonly` : ''}>
<label for="username">Username (optional)</label>
<input id="username" name="username" type="text" autocomplete="username" maxlength="63" value="${v.username ?? ''}" aria-describedby="username-help">
<p class="muted" id="username-help">Lowercase letters, digits, ".", "_" or "-". Left empty, it is made from your email address.</p>
<label for="name">Name</label>
<input id="name" name="name" type="text" autocomplete="name" required maxlength="200" value="${v.name ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="12" maxlength="1024" aria-describedby="password-help">
<p class="muted" id="password-help">At least 12 characters, not your email address, not a common password.</p>
<label for="confirm">Password again</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" required maxlength="1024">
<button type="submit">Create account</button>
</form>
<p>Already have an account? <a href="${loginHref(opts.requestId)}">Sign in</a></p>`,
  });
}

/** Signing up is not possible (registration closed, no or an unusable invitation, too many attempts): why, in plain words. */
export function signupRefusedPage(res: Response, status: number, message: string, opts: { openSignup?: boolean } = {}): void {
  sendPage(res, {
    title: 'Sign-up not possible',
    status,
    body: html`<h1>Sign-up not possible</h1>
<p class="error" role="alert">${message}</p>
${opts.openSignup ? html`<p><a href="${PAGES.signup}">Sign up without an invitation</a></p>` : ''}
<p><a href="${PAGES.login}">Sign in</a></p>`,
  });
}

/**
 * The login page's "Create an account" link: when registration is open, or the
 * page came with an invitation (`?invite=`) and registration is not closed.
 * Null when there is nothing to link to.
 */
export function signupHref(registration: 'open' | 'invite' | 'closed', invite: string | null, requestId: string | null): string | null {
  if (registration === 'closed' || (registration === 'invite' && invite === null)) return null;
  const query = new URLSearchParams();
  if (invite !== null) query.set('invite', invite);
  if (requestId !== null) query.set('request', requestId);
  const q = query.toString();
  return q ? `${PAGES.signup}?${q}` : PAGES.signup;
}
