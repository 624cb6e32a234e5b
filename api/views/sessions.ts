// The sessions page: where the user is signed in, with "Sign out" per session
// and "Sign out everywhere"; and the page a signed-out browser sees.
import type { Response } from 'express';
import type { SessionDoc } from '../../lib/model/sessions.js';
import { html, type SafeHtml } from '../html/html.js';
import { sendPage } from '../html/layout.js';
import { confirmedAction } from '../html/confirm.js';
import { accountShell } from './account-nav.js';
import type { SignedIn } from '../http/signed-in.js';
import { PAGES } from '../paths.js';

const when = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export function signedOutPage(res: Response, message: string): void {
  sendPage(res, { title: 'Signed out', body: html`<h1>You are signed out</h1><p>${message}</p><p><a href="${PAGES.login}">Sign in again</a></p>` });
}

export function sessionsPage(res: Response, signed: SignedIn, sessions: SessionDoc[], notice?: SafeHtml): void {
  const { session } = signed;
  sendPage(res, {
    title: 'Your sessions',
    shell: accountShell(signed, PAGES.sessions),
    body: html`<h1>Your sessions</h1>
${notice ?? ''}
<p>Browsers where you are signed in to Keyflow. Sign out of any you do not recognise.</p>
<ul class="sessions">${sessions.map(
      (s) => html`<li${s.sid === session.sid ? html` aria-current="true"` : ''}><strong>${s.sid === session.sid ? 'This browser' : 'Another browser'}</strong>
<span class="muted">signed in ${when(s.authTime ?? s.createdAt)}, last seen ${when(s.lastSeenAt ?? s.createdAt)}</span>
${confirmedAction({
  csrf: session.csrf,
  action: `${PAGES.sessions}/${s.sid}/sign-out`,
  label: 'Sign out',
  question: s.sid === session.sid ? 'You are signed out of this browser.' : 'That browser is signed out, and the apps it signed in to are told.',
  confirm: 'Yes, sign it out',
})}</li>`,
    )}</ul>
${confirmedAction({
  csrf: session.csrf,
  action: `${PAGES.sessions}/sign-out-everywhere`,
  label: 'Sign out everywhere',
  question: 'Every browser where you are signed in is signed out, this one included.',
  confirm: 'Yes, sign out everywhere',
})}`,
  });
}
