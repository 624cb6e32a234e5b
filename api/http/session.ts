// The browser session behind the session cookie (`kf_session`; `__Host-kf_session`
// and Secure with an https issuer; HttpOnly, SameSite=Lax), and CSRF protection
// for forms.
//
// A session document is created only when a form needs server state: a
// sign-in, a pending second factor, a WebAuthn ceremony. A page shown to a
// browser without a session writes nothing: its forms carry a stateless
// double-submit token instead, a random value in the HttpOnly cookie
// `kf_csrf` repeated in the form. Another site can neither read that cookie
// nor send it with a cross-site POST (SameSite=Lax), nor plant it (`__Host-`).
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { constantTimeEqual, newSecret } from '../../lib/security/secrets.js';
import { ANONYMOUS_SESSION_TTL_MS, isIdle, lastSeen, SESSION_TTL_MS, type Acr, type SessionDoc, type SessionState } from '../../lib/model/sessions.js';
import type { Store } from '../../lib/store/db.js';
import { takeAttempt } from '../../lib/store/rate-limits.js';
import { createSession, deleteSession, findSession, touchSession, updateSession } from '../../lib/store/sessions.js';
import { readCookie, setCookie, type CookieDeps } from './cookies.js';
import { clientAddress } from './request-limits.js';
import { reauthUrl, signedInRecently } from './recent-sign-in.js';
import { fieldsOf, raw } from './input.js';
import { currentTimeMs } from '../../lib/runtime/clock.js';
import type { AuditTrail } from '../../lib/audit/audit-trail.js';

/** The form field carrying the CSRF token (anything but one string is refused below). */
const CsrfField = fieldsOf({ csrf: raw });

declare module 'express-serve-static-core' {
  interface Request {
    /** The browser session, loaded by sessionMiddleware (null: none, expired or idle too long). */
    kfSession?: SessionDoc | null;
    /** This browser's anonymous CSRF token (the `kf_csrf` cookie), if it has one. */
    kfAnonymousCsrf?: string | null;
  }
}

export const SESSION_COOKIE = 'kf_session';
const CSRF_COOKIE = 'kf_csrf';
const CSRF_COOKIE_TTL_MS = 12 * 3600_000;
/** Both cookies hold newSecret() values: anything else is not looked up. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface SessionDeps extends CookieDeps {
  store: Store;
}

export interface SessionMiddlewareDeps extends SessionDeps {
  /** A signed-in session ends after this long without a request (SESSION_IDLE_MINUTES). */
  idleMs: number;
}

/** lastSeenAt is written at most this often: FerretDB v1 rewrites the whole document per update. */
const TOUCH_INTERVAL_MS = 60_000;

const wellFormed = (value: string | undefined): string | null => (value && TOKEN.test(value) ? value : null);

export function sessionMiddleware(deps: SessionMiddlewareDeps): RequestHandler {
  return async (req: Request, _res: Response, next: NextFunction) => {
    req.kfAnonymousCsrf = wellFormed(readCookie(req, deps, CSRF_COOKIE));
    const token = wellFormed(readCookie(req, deps, SESSION_COOKIE));
    let session = token ? await findSession(deps.store, token) : null;
    const now = currentTimeMs();
    if (session && isIdle(session, deps.idleMs, now)) {
      await deleteSession(deps.store, session._id);
      session = null;
    } else if (session?.userId && now - lastSeen(session) >= TOUCH_INTERVAL_MS) {
      session.lastSeenAt = new Date(now);
      await touchSession(deps.store, session._id, session.lastSeenAt);
    }
    req.kfSession = session;
    next();
  };
}

/**
 * The CSRF token for the forms of a page: the session's, or for a browser
 * without a session the anonymous double-submit token (its cookie is set here
 * when missing). Writes nothing to the database.
 */
export function formCsrf(req: Request, res: Response, deps: CookieDeps): string {
  if (req.kfSession) return req.kfSession.csrf;
  if (req.kfAnonymousCsrf) return req.kfAnonymousCsrf;
  const token = newSecret();
  setCookie(res, deps, CSRF_COOKIE, token, CSRF_COOKIE_TTL_MS);
  req.kfAnonymousCsrf = token;
  return token;
}

/**
 * The session of this browser for a step that needs server state (a pending
 * second factor, a WebAuthn challenge), with `state` set on it: the existing
 * session, or a new anonymous one. New ones count against the client address
 * (`perIpPerMinute`): null when over that limit.
 */
export async function sessionForState(
  req: Request,
  res: Response,
  deps: SessionDeps,
  perIpPerMinute: number,
  state: SessionState = {},
): Promise<SessionDoc | null> {
  const existing = req.kfSession;
  if (existing) {
    if (Object.keys(state).length) await updateSession(deps.store, existing._id, state);
    return Object.assign(existing, state);
  }
  const limit = await takeAttempt(deps.store, `session-create:${clientAddress(req)}`, { max: perIpPerMinute, windowMs: 60_000 });
  if (!limit.allowed) return null;
  return adopt(req, res, deps, await createSession(deps.store, null, state), ANONYMOUS_SESSION_TTL_MS);
}

/** How a sign-in began, from its methods (RFC 8176): an upstream provider, a password, or a passkey alone. */
export function loginMethod(amr: readonly string[]): 'social' | 'password' | 'passkey' {
  return amr.includes('fed') ? 'social' : amr.includes('pwd') ? 'password' : 'passkey';
}

/** The factor a signed-in user confirmed again: the strongest of the sign-in's methods. */
function reauthMethod(amr: readonly string[]): 'passkey' | 'totp' | 'password' | 'social' {
  return amr.includes('webauthn') ? 'passkey' : amr.includes('otp') ? 'totp' : amr.includes('fed') ? 'social' : 'password';
}

/**
 * Signs the user in: the old session ends and a new one (new cookie, new sid)
 * begins. Every completed sign-in (password, passkey, upstream, after any
 * second factor) passes here, so here it is recorded: `login`, or `reauth`
 * when this browser was signed in as the same user already (a sensitive
 * change asked to sign in again: api/http/recent-sign-in.ts).
 */
export async function startSignedInSession(
  req: Request,
  res: Response,
  deps: SessionDeps & { audit: AuditTrail },
  auth: { userId: string; amr: string[]; acr: Acr },
): Promise<SessionDoc> {
  const again = req.kfSession?.userId === auth.userId;
  if (req.kfSession) await deleteSession(deps.store, req.kfSession._id);
  const session = adopt(req, res, deps, await createSession(deps.store, auth), SESSION_TTL_MS);
  const who = { actor: { type: 'user', userId: auth.userId } as const, subject: { userId: auth.userId } };
  if (again) await deps.audit.record('reauth', { ...who, data: { method: reauthMethod(auth.amr) } });
  else deps.audit.note('login', { ...who, data: { method: loginMethod(auth.amr), amr: auth.amr, acr: auth.acr } });
  return session;
}

/** A new session becomes this browser's (its cookie) and this request's. */
function adopt(req: Request, res: Response, deps: CookieDeps, { token, session }: { token: string; session: SessionDoc }, ttlMs: number): SessionDoc {
  setCookie(res, deps, SESSION_COOKIE, token, ttlMs);
  req.kfSession = session;
  return session;
}

/** Ends the session and clears its cookie; returns the ended session (for back-channel logout). */
export async function endSession(req: Request, res: Response, deps: SessionDeps): Promise<SessionDoc | null> {
  const ended = req.kfSession ? await deleteSession(deps.store, req.kfSession._id) : null;
  setCookie(res, deps, SESSION_COOKIE, '', 0);
  req.kfSession = null;
  return ended;
}

/**
 * True when the request carries this session's CSRF token or the browser's
 * anonymous one (form field `csrf` or header `X-CSRF-Token`), compared in
 * constant time.
 */
export function hasValidCsrf(req: Request, session: SessionDoc | null | undefined): boolean {
  const sent = CsrfField.parse(req.body).csrf ?? req.get('x-csrf-token');
  if (typeof sent !== 'string') return false;
  const bySession = !!session && constantTimeEqual(sent, session.csrf);
  const anonymous = !!req.kfAnonymousCsrf && constantTimeEqual(sent, req.kfAnonymousCsrf);
  return bySession || anonymous;
}

/**
 * For a sensitive account change: true when the session's sign-in is at most
 * `maxAgeMs` old. Otherwise the browser is sent to sign in again and come back
 * to `pagePath` (a form: 303 redirect; a JSON call: 401 with `redirect`).
 */
export function requireRecentSignIn(res: Response, session: SessionDoc, maxAgeMs: number, pagePath: string, asJson = false): boolean {
  if (signedInRecently(session, maxAgeMs)) return true;
  const redirect = reauthUrl(pagePath);
  if (asJson)
    res.status(401).set('Cache-Control', 'no-store').json({ error: 'login_required', error_description: 'Sign in again to make this change.', redirect });
  else res.redirect(303, redirect);
  return false;
}
