// The signed-in user of a browser request (the user of its session, read once
// per request), the check that signs out a session whose user is gone or
// disabled, and the CSRF check of account forms.
import type { Request, RequestHandler, Response } from 'express';
import type { SessionDoc } from '../../lib/model/sessions.js';
import { isDisabled, type UserDoc } from '../../lib/model/users.js';
import { findUserById } from '../../lib/store/users.js';
import { sendErrorPage } from '../html/layout.js';
import { sessionEnded, type SignOutDeps } from './sign-out.js';
import { endSession, hasValidCsrf, type SessionDeps } from './session.js';
import { PAGES } from '../paths.js';

export type SignedIn = { session: SessionDoc; user: UserDoc };

declare module 'express-serve-static-core' {
  interface Request {
    /** The user of kfSession as this request read it (sessionUser). */
    kfUser?: UserDoc | null;
  }
}

/**
 * The user of this request's signed-in session; null when signed out or the
 * user is gone or disabled. Read from the store once per request and session.
 */
export async function sessionUser(deps: Pick<SessionDeps, 'store'>, req: Request): Promise<UserDoc | null> {
  const userId = req.kfSession?.userId;
  if (!userId) return null;
  if (req.kfUser?._id !== userId) req.kfUser = await findUserById(deps.store, userId);
  const user = req.kfUser;
  return user && !isDisabled(user) ? user : null;
}

/**
 * After sessionMiddleware, before anything reads the session: a signed-in
 * session whose user is gone or disabled is ended as at sign-out, so every
 * page, the consent, authorization and device flows see a signed-out browser.
 * A sign-in that passed the disabled check just before an admin disabled the
 * account leaves such a session (the admin's sign-out of the user's sessions
 * ran before it existed).
 */
export function signedInSession(deps: SignOutDeps): RequestHandler {
  return async (req, res, next) => {
    if (req.kfSession?.userId && !(await sessionUser(deps, req))) {
      const ended = await endSession(req, res, deps);
      if (ended?.userId) {
        // Ended here because the account was disabled or deleted after the change ended its other sessions.
        await deps.audit.record('session.revoked', {
          actor: { type: 'system' },
          subject: { userId: ended.userId },
          data: { session_id: ended.sid, by: 'account_change' },
        });
        // The session is gone already; a back-channel logout that cannot start now is not worth a failed page.
        await sessionEnded(deps, ended).catch((err: Error) => deps.log.warn('back-channel logout not started for an ended session', { error: err.message }));
      }
    }
    next();
  };
}

/** The signed-in user of a page request, or a redirect to sign-in. */
export async function signedInUser(deps: SessionDeps, req: Request, res: Response): Promise<SignedIn | null> {
  const session = req.kfSession;
  const user = await sessionUser(deps, req);
  if (session && user) return { session, user };
  res.redirect(303, PAGES.login);
  return null;
}

/** True when the form carries the session's CSRF token; else an error page is sent. */
export function csrfGuard(req: Request, res: Response, s: SignedIn): boolean {
  if (hasValidCsrf(req, s.session)) return true;
  sendErrorPage(res, 400, 'Session expired', 'Your session expired. Reload the page and try again.');
  return false;
}
