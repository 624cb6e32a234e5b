// The browser session behind the `kf_session` cookie (HttpOnly, SameSite=Lax,
// Secure when the issuer is https), and CSRF protection for its forms.
import { parse as parseCookies, serialize } from 'cookie';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { constantTimeEqual } from '../../security/secrets.js';
import type { Store } from '../../store/db.js';
import { createSession, deleteSession, findSession, SESSION_TTL_MS, type Acr, type SessionDoc } from '../../store/sessions.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** The browser session, loaded by sessionMiddleware (null: none or expired). */
    kfSession?: SessionDoc | null;
  }
}

export const SESSION_COOKIE = 'kf_session';

export interface SessionDeps {
  store: Store;
  secureCookies: boolean;
}

function setCookie(res: Response, deps: SessionDeps, token: string, maxAgeMs: number): void {
  res.append(
    'Set-Cookie',
    serialize(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure: deps.secureCookies, path: '/', maxAge: Math.floor(maxAgeMs / 1000) }),
  );
}

function clearCookie(res: Response, deps: SessionDeps): void {
  res.append('Set-Cookie', serialize(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'lax', secure: deps.secureCookies, path: '/', maxAge: 0 }));
}

export function sessionMiddleware(deps: SessionDeps): RequestHandler {
  return async (req: Request, _res: Response, next: NextFunction) => {
    const token = parseCookies(req.headers.cookie ?? '')[SESSION_COOKIE];
    req.kfSession = token && token.length <= 64 ? await findSession(deps.store, token) : null;
    next();
  };
}

/** The session of this browser, created (anonymous) when it has none: forms need one for CSRF. */
export async function ensureSession(req: Request, res: Response, deps: SessionDeps): Promise<SessionDoc> {
  if (req.kfSession) return req.kfSession;
  const { token, session } = await createSession(deps.store, null);
  setCookie(res, deps, token, 3600_000);
  req.kfSession = session;
  return session;
}

/** Signs the user in: the old session ends and a new one (new cookie, new sid) begins. */
export async function startSignedInSession(
  req: Request,
  res: Response,
  deps: SessionDeps,
  auth: { userId: string; amr: string[]; acr: Acr },
): Promise<SessionDoc> {
  if (req.kfSession) await deleteSession(deps.store, req.kfSession._id);
  const { token, session } = await createSession(deps.store, auth);
  setCookie(res, deps, token, SESSION_TTL_MS);
  req.kfSession = session;
  return session;
}

/** Ends the session and clears its cookie; returns the ended session (for back-channel logout). */
export async function endSession(req: Request, res: Response, deps: SessionDeps): Promise<SessionDoc | null> {
  const ended = req.kfSession ? await deleteSession(deps.store, req.kfSession._id) : null;
  clearCookie(res, deps);
  req.kfSession = null;
  return ended;
}

/** True when the request carries this session's CSRF token (form field `csrf` or header `X-CSRF-Token`). */
export function hasValidCsrf(req: Request, session: SessionDoc | null | undefined): boolean {
  const sent = (req.body as Record<string, unknown> | undefined)?.csrf ?? req.get('x-csrf-token');
  return !!session && typeof sent === 'string' && constantTimeEqual(sent, session.csrf);
}
