// /account/sessions: the user's signed-in sessions (when each began, when it
// was last used, which one is this browser), "Sign out" per session and "Sign
// out everywhere". A session ended here gets what a sign-out gets: its sudo
// windows end and its clients are told by back-channel logout.
import express, { Router, type Response } from 'express';
import { deleteUserSession, listUserSessions } from '../../lib/store/sessions.js';
import { html, type SafeHtml } from '../html/html.js';
import { csrfField, sendPage } from '../html/layout.js';
import { endUserSessions, sessionEnded, signOut, type SignOutDeps } from '../oauth/sign-out.js';
import { csrfGuard, signedInUser, type SignedIn } from './tokens.js';

export interface SessionsPageDeps extends SignOutDeps {
  /** Sessions idle for longer are over (not listed). */
  idleMs: number;
}

export const SESSIONS_PAGE = '/account/sessions';
const SID = /^[0-9a-f-]{36}$/;

const when = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

function signedOutPage(res: Response, message: string) {
  sendPage(res, { title: 'Signed out', body: html`<h1>You are signed out</h1><p>${message}</p><p><a href="/login">Sign in again</a></p>` });
}

export function sessionsPageRoutes(deps: SessionsPageDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  async function sessionsPage(res: Response, { session, user }: SignedIn, notice?: SafeHtml) {
    const sessions = await listUserSessions(deps.store, user._id, deps.idleMs);
    sendPage(res, {
      title: 'Your sessions',
      body: html`<h1>Your sessions</h1>
${notice ?? ''}
<p>Browsers where you are signed in to Keyflow. Sign out of any you do not recognise.</p>
<ul class="sessions">${sessions.map(
        (s) => html`<li${s.sid === session.sid ? html` aria-current="true"` : ''}><strong>${s.sid === session.sid ? 'This browser' : 'Another browser'}</strong>
<span class="muted">signed in ${when(s.authTime ?? s.createdAt)}, last seen ${when(s.lastSeenAt ?? s.createdAt)}</span>
<form class="inline" method="post" action="${SESSIONS_PAGE}/${s.sid}/sign-out">${csrfField(session.csrf)}<button type="submit" class="secondary">Sign out</button></form></li>`,
      )}</ul>
<form method="post" action="${SESSIONS_PAGE}/sign-out-everywhere">${csrfField(session.csrf)}<button type="submit">Sign out everywhere</button></form>
<p><a href="/account">Back to your account</a></p>`,
    });
  }

  router.get(SESSIONS_PAGE, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (s) await sessionsPage(res, s);
  });

  router.post(`${SESSIONS_PAGE}/sign-out-everywhere`, form, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s)) return;
    const ended = await endUserSessions(deps, s.user._id, s.session.sid);
    await signOut(req, res, deps);
    deps.log.info('signed out everywhere', { user: s.user._id, sessions: ended + 1 });
    signedOutPage(res, 'Every browser where you were signed in is signed out.');
  });

  router.post(`${SESSIONS_PAGE}/:sid/sign-out`, form, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s)) return;
    const sid = String(req.params.sid);
    if (sid === s.session.sid) {
      await signOut(req, res, deps);
      return signedOutPage(res, 'This browser is signed out.');
    }
    const ended = SID.test(sid) ? await deleteUserSession(deps.store, s.user._id, sid) : null;
    if (ended) await sessionEnded(deps, ended);
    await sessionsPage(res, s, ended ? html`<p role="status">That session is signed out.</p>` : html`<p class="error" role="alert">That session had already ended.</p>`);
  });

  return router;
}
