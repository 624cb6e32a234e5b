// Access tokens at Keyflow's resource endpoints (UserInfo, /api/oauth/me/*):
// RFC 6750 Bearer, RFC 9068 validation, grant revocation checked, and the
// RFC 9728 `resource_metadata` in every challenge.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { verifyOwnJwt } from '../../keys/verifier.js';
import type { Keyring } from '../../keys/keyring.js';
import type { Store } from '../../store/db.js';
import { isAccessTokenActive } from '../../store/grants.js';
import { WELL_KNOWN } from '../../domain/discovery.js';

export interface AccessContext {
  userId: string;
  clientId: string;
  scope: string[];
  grantId: string;
  claims: Record<string, unknown>;
}

declare module 'express-serve-static-core' {
  interface Request {
    access?: AccessContext;
  }
}

export interface BearerDeps {
  issuer: string;
  keyring: Keyring;
  store: Store;
}

export async function authenticateAccessToken(deps: BearerDeps, token: string): Promise<AccessContext | null> {
  const jwt = await verifyOwnJwt(deps.keyring, token);
  if (!jwt || jwt.header.typ !== 'at+jwt') return null;
  const c = jwt.claims;
  const now = Math.floor(Date.now() / 1000);
  const aud = Array.isArray(c.aud) ? c.aud : [c.aud];
  if (c.iss !== deps.issuer || !aud.includes(deps.issuer) || typeof c.exp !== 'number' || c.exp <= now) return null;
  if (typeof c.sub !== 'string' || typeof c.client_id !== 'string' || typeof c.grant_id !== 'string' || typeof c.scope !== 'string') return null;
  if (typeof c.jti !== 'string' || !(await isAccessTokenActive(deps.store, c.grant_id, c.jti))) return null;
  return { userId: c.sub, clientId: c.client_id, scope: c.scope.split(' ').filter(Boolean), grantId: c.grant_id, claims: c };
}

function challenge(issuer: string, params: Record<string, string>): string {
  const all = { ...params, resource_metadata: `${issuer}${WELL_KNOWN.protectedResource}` };
  return `Bearer ${Object.entries(all)
    .map(([k, v]) => `${k}="${v.replace(/["\\]/g, '')}"`)
    .join(', ')}`;
}

function deny(res: Response, issuer: string, status: number, error: string | undefined, description: string, extra: Record<string, string> = {}): void {
  const params: Record<string, string> = error ? { error, error_description: description, ...extra } : extra;
  res
    .status(status)
    .set({ 'WWW-Authenticate': challenge(issuer, params), 'Cache-Control': 'no-store' })
    .json({ error: error ?? 'invalid_token', error_description: description });
}

/** The token from `Authorization: Bearer` or, for form POSTs, the `access_token` field (RFC 6750 §2.1-2.2). */
function extractToken(req: Request): { token?: string; problem?: string } {
  const header = req.get('authorization');
  const body = req.is('application/x-www-form-urlencoded') ? (req.body as Record<string, unknown>)?.access_token : undefined;
  if (header !== undefined && body !== undefined) return { problem: 'send the access token once' };
  if (header !== undefined) {
    const m = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(header);
    return m ? { token: m[1] } : { problem: 'the Authorization header must be "Bearer <token>"' };
  }
  if (typeof body === 'string') return { token: body };
  return {};
}

/** Requires a valid access token carrying every scope in `scopes`. */
export function requireAccessToken(deps: BearerDeps, scopes: string[]): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const { token, problem } = extractToken(req);
    if (problem) return deny(res, deps.issuer, 400, 'invalid_request', problem);
    if (!token) return deny(res, deps.issuer, 401, undefined, 'an access token is required');
    const access = await authenticateAccessToken(deps, token);
    if (!access) return deny(res, deps.issuer, 401, 'invalid_token', 'the access token is invalid, expired or revoked');
    const missing = scopes.filter((s) => !access.scope.includes(s));
    if (missing.length) return deny(res, deps.issuer, 403, 'insufficient_scope', `this request needs the scope ${missing.join(' ')}`, { scope: scopes.join(' ') });
    req.access = access;
    next();
  };
}
