// The signed-in user of an account page, and the CSRF check of its forms.
import type { Request, Response } from 'express';
import type { SessionDoc } from '../../lib/domain/sessions.js';
import type { UserDoc } from '../../lib/domain/users.js';
import { findUserById } from '../../lib/store/users.js';
import { sendErrorPage } from '../html/layout.js';
import { hasValidCsrf, type SessionDeps } from './session.js';

export type SignedIn = { session: SessionDoc; user: UserDoc };

/** The signed-in user of a page request, or a redirect to sign-in. */
export async function signedInUser(deps: SessionDeps, req: Request, res: Response): Promise<SignedIn | null> {
  const session = req.kfSession;
  const user = session?.userId ? await findUserById(deps.store, session.userId) : null;
  if (session && user) return { session, user };
  res.redirect(303, '/login');
  return null;
}

/** True when the form carries the session's CSRF token; else an error page is sent. */
export function csrfGuard(req: Request, res: Response, s: SignedIn): boolean {
  if (hasValidCsrf(req, s.session)) return true;
  sendErrorPage(res, 400, 'Session expired', 'Your session expired. Reload the page and try again.');
  return false;
}
