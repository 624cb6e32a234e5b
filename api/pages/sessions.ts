// /account/sessions: the user's signed-in sessions (when each began, when it
// was last used, which one is this browser), "Sign out" per session and "Sign
// out everywhere". A session ended here gets what a sign-out gets: its sudo
// windows end and its clients are told by back-channel logout.
import express, { Router, type Response } from 'express';
import { listUserSessions } from '../../lib/store/sessions.js';
import { html, type SafeHtml } from '../html/html.js';
import { sessionsPage as sessionsPageView, signedOutPage } from '../views/sessions.js';
import { endOtherSession, endUserSessions, signOut, type SignOutDeps } from '../http/sign-out.js';
import { csrfGuard, signedInUser, type SignedIn } from '../http/signed-in.js';
import { PAGES } from '../paths.js';

export interface SessionsPageDeps extends SignOutDeps {
  /** Sessions idle for longer are over (not listed). */
  idleMs: number;
}

const SID = /^[0-9a-f-]{36}$/;

export function sessionsPageRoutes(deps: SessionsPageDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  async function sessionsPage(res: Response, s: SignedIn, notice?: SafeHtml): Promise<void> {
    sessionsPageView(res, s, await listUserSessions(deps.store, s.user._id, deps.idleMs), notice);
  }

  router.get(PAGES.sessions, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (s) await sessionsPage(res, s);
  });

  router.post(`${PAGES.sessions}/sign-out-everywhere`, form, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s)) return;
    const ended = await endUserSessions(deps, s.user._id, s.session.sid, { by: 'user', actor: { type: 'user', userId: s.user._id } });
    await signOut(req, res, deps);
    deps.log.info('signed out everywhere', { user: s.user._id, sessions: ended + 1 });
    signedOutPage(res, 'Every browser where you were signed in is signed out.');
  });

  router.post(`${PAGES.sessions}/:sid/sign-out`, form, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s)) return;
    const sid = String(req.params.sid);
    if (sid === s.session.sid) {
      await signOut(req, res, deps);
      return signedOutPage(res, 'This browser is signed out.');
    }
    const ended = SID.test(sid) ? await endOtherSession(deps, s.user._id, sid, { by: 'user', actor: { type: 'user', userId: s.user._id } }) : null;
    await sessionsPage(
      res,
      s,
      ended ? html`<p role="status">That session is signed out.</p>` : html`<p class="error" role="alert">That session had already ended.</p>`,
    );
  });

  return router;
}
