// Cookie names and attributes in one place. With an https issuer every
// cookie is Secure and carries the `__Host-` prefix, which browsers accept
// only from a secure origin, for Path=/ and without Domain: a sibling
// subdomain cannot plant or overwrite it.
import { parse as parseCookies, serialize } from 'cookie';
import type { Request, Response } from 'express';

export interface CookieDeps {
  secureCookies: boolean;
}

export const cookieName = (deps: CookieDeps, base: string) => (deps.secureCookies ? `__Host-${base}` : base);

export function readCookie(req: Request, deps: CookieDeps, base: string): string | undefined {
  return parseCookies(req.headers.cookie ?? '')[cookieName(deps, base)];
}

/** HttpOnly, SameSite=Lax, Path=/, Secure with an https issuer; `maxAgeMs` 0 clears it. */
export function setCookie(res: Response, deps: CookieDeps, base: string, value: string, maxAgeMs: number): void {
  res.append(
    'Set-Cookie',
    serialize(cookieName(deps, base), value, { httpOnly: true, sameSite: 'lax', secure: deps.secureCookies, path: '/', maxAge: Math.floor(maxAgeMs / 1000) }),
  );
}
