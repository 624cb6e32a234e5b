// POST /logout: the account pages' "Sign out" button (a form with its CSRF
// token). The session ends as at every sign-out (api/http/sign-out.ts), then
// the signed-out page. RP-initiated logout is the protocol's end-session
// endpoint (api/protocol/end-session.ts).
import express, { Router } from 'express';
import { sendErrorPage } from '../html/layout.js';
import { hasValidCsrf } from '../http/session.js';
import { signOut, type SignOutDeps } from '../http/sign-out.js';
import { signedOutPage } from '../views/login.js';
import { PAGES } from '../paths.js';

export function logoutRoutes(deps: SignOutDeps): Router {
  const router = Router();
  router.post(PAGES.logout, express.urlencoded({ extended: false, limit: '16kb' }), async (req, res) => {
    if (!hasValidCsrf(req, req.kfSession)) return sendErrorPage(res, 400, 'Sign-out failed', 'Your session expired. Reload the page and try again.');
    await signOut(req, res, deps);
    signedOutPage(res);
  });
  return router;
}
