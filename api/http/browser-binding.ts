// The browser an authorization request was started in. A stored request
// (waiting for sign-in or consent) is bound to a random value in an HttpOnly
// cookie of that browser, so a link to it is worthless anywhere else: an
// attacker cannot start (and consent to) a request for their own client and
// have a victim finish it by signing in. The cookie is not the session: it
// survives sign-in, which rotates the session.
import type { Request, Response } from 'express';
import { hashSecret, newSecret } from '../../lib/security/secrets.js';
import { cookieName, readCookie, setCookie, type CookieDeps } from './cookies.js';

const BROWSER_COOKIE = 'kf_browser';
const BROWSER_COOKIE_TTL_MS = 30 * 24 * 3600_000;

/** The binding of this browser, or null when it has none yet. */
export function currentBrowserBinding(req: Request, deps: CookieDeps): string | null {
  const value = readCookie(req, deps, BROWSER_COOKIE);
  return value && /^[A-Za-z0-9_-]{43}$/.test(value) ? hashSecret(value) : null;
}

/** The binding of this browser, given one (a new cookie) when it has none. */
export function browserBinding(req: Request, res: Response, deps: CookieDeps): string {
  const existing = currentBrowserBinding(req, deps);
  if (existing) return existing;
  const value = newSecret();
  setCookie(res, deps, BROWSER_COOKIE, value, BROWSER_COOKIE_TTL_MS);
  // Later calls in this request see the new cookie.
  req.headers.cookie = [req.headers.cookie, `${cookieName(deps, BROWSER_COOKIE)}=${value}`].filter(Boolean).join('; ');
  return hashSecret(value);
}
