// Access tokens at Keyflow's resource endpoints (UserInfo, /api/oauth/me/*):
// RFC 6750 Bearer, RFC 9068 validation, grant revocation checked, and the
// RFC 9728 `resource_metadata` in every challenge.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { verifyOwnJwt } from '../../../lib/keys/verifier.js';
import { isGrantLive, usableGrant } from '../../../lib/store/grants.js';
import type { UserDoc } from '../../../lib/model/users.js';
import { PAT_PREFIX } from '../../../lib/model/personal-access-tokens.js';
import { personalAccessTokenContext } from '../../../lib/store/personal-access-tokens.js';
import { WELL_KNOWN } from '../../../lib/model/discovery.js';
import { DPOP_ALGS, dpopHeader, dpopRequestUrl, verifyDpopProof } from './dpop.js';
import { fieldsOf, raw } from '../../http/input.js';
import type { ApiContext } from '../../context.js';
import { currentTimeMs } from '../../../lib/runtime/clock.js';

/** A form POST may carry its token in a field (any value present counts as sent, so a token sent twice is refused). */
const BearerForm = fieldsOf({ access_token: raw });

export interface AccessContext {
  userId: string;
  clientId: string;
  scope: string[];
  grantId: string;
  claims: Record<string, unknown>;
  /** The token's user as the check read it (OAuth access tokens; not personal access tokens). */
  user?: UserDoc;
  /** Claims its grant asked for at UserInfo with the `claims` parameter (OAuth access tokens). */
  userinfoClaims?: string[];
}

declare module 'express-serve-static-core' {
  interface Request {
    access?: AccessContext;
  }
}

export type BearerDeps = Pick<ApiContext, 'issuer' | 'keyring' | 'store'>;

type AccessTokenClaims = Record<string, unknown> & { sub: string; client_id: string; grant_id: string; scope: string; jti: string };

/** The claims of a Keyflow JWT access token that verifies (signature, issuer, expiry, the claims every one carries); null otherwise. */
async function accessTokenClaims(deps: Pick<BearerDeps, 'issuer' | 'keyring'>, token: string): Promise<AccessTokenClaims | null> {
  const jwt = await verifyOwnJwt(deps.keyring, token);
  if (!jwt || jwt.header.typ !== 'at+jwt') return null;
  const c = jwt.claims;
  const now = Math.floor(currentTimeMs() / 1000);
  if (c.iss !== deps.issuer || typeof c.exp !== 'number' || c.exp <= now) return null;
  if (typeof c.sub !== 'string' || typeof c.client_id !== 'string' || typeof c.grant_id !== 'string' || typeof c.scope !== 'string') return null;
  if (typeof c.jti !== 'string') return null;
  return { ...c, sub: c.sub, client_id: c.client_id, grant_id: c.grant_id, scope: c.scope, jti: c.jti };
}

/**
 * A live access token of any audience: a Keyflow JWT access token (signature,
 * issuer, expiry, grant and jti not revoked, client and user still there) or a
 * personal access token. For token exchange, which answers about any token of
 * the calling client; Keyflow's own API uses authenticateAccessToken. The
 * grant, the client and the user are read fresh: a client or user whose
 * deletion stopped half-way is refused at once.
 */
export async function verifyAccessToken(deps: BearerDeps, token: string): Promise<AccessContext | null> {
  // Personal access tokens (kfpat_…): looked up by hash; not expired, not revoked.
  if (token.startsWith(PAT_PREFIX)) return personalAccessTokenContext(deps.store, token);
  const c = await accessTokenClaims(deps, token);
  if (!c) return null;
  const usable = await usableGrant(deps.store, { grantId: c.grant_id, clientId: c.client_id, userId: c.sub, jti: c.jti });
  if (!usable) return null;
  const scope = c.scope.split(' ').filter(Boolean);
  return { userId: c.sub, clientId: c.client_id, scope, grantId: c.grant_id, claims: c, user: usable.user, userinfoClaims: usable.userinfoClaims };
}

/**
 * Introspection's check of an access token of the calling client (`callerId`:
 * a token of another client is null): its claims if it is live. For a JWT one
 * read, the grant: the client is the caller (it just authenticated), and the
 * user's status comes from the cached lookup.
 */
export async function liveAccessTokenClaims(
  deps: BearerDeps & Pick<ApiContext, 'userActive'>,
  token: string,
  callerId: string,
): Promise<Record<string, unknown> | null> {
  if (token.startsWith(PAT_PREFIX)) {
    const access = await verifyAccessToken(deps, token);
    return access && access.clientId === callerId ? access.claims : null;
  }
  const c = await accessTokenClaims(deps, token);
  if (!c || c.client_id !== callerId) return null;
  return (await isGrantLive(deps.store, { grantId: c.grant_id, clientId: c.client_id, userId: c.sub, jti: c.jti }, deps.userActive)) ? c : null;
}

/**
 * An access token for Keyflow's own API (UserInfo, /api/oauth/me/*, …): live,
 * and naming the issuer in `aud` (RFC 9068 §4), which Keyflow puts there only
 * for tokens granted one of its API's scopes. A token meant for another
 * resource alone is refused here. Personal access tokens are Keyflow's alone.
 */
export async function authenticateAccessToken(deps: BearerDeps, token: string): Promise<AccessContext | null> {
  const access = await verifyAccessToken(deps, token);
  if (!access || token.startsWith(PAT_PREFIX)) return access;
  const aud = Array.isArray(access.claims.aud) ? access.claims.aud : [access.claims.aud];
  return aud.includes(deps.issuer) ? access : null;
}

type Scheme = 'Bearer' | 'DPoP';

function challenge(issuer: string, params: Record<string, string>, scheme: Scheme = 'Bearer'): string {
  const algs: Record<string, string> = scheme === 'DPoP' ? { algs: DPOP_ALGS.join(' ') } : {};
  const all = { ...params, ...algs, resource_metadata: `${issuer}${WELL_KNOWN.protectedResource}` };
  return `${scheme} ${Object.entries(all)
    .map(([k, v]) => `${k}="${v.replace(/["\\]/g, '')}"`)
    .join(', ')}`;
}

function deny(
  res: Response,
  issuer: string,
  status: number,
  error: string | undefined,
  description: string,
  extra: Record<string, string> = {},
  scheme: Scheme = 'Bearer',
): void {
  const params: Record<string, string> = error ? { error, error_description: description, ...extra } : extra;
  res
    .status(status)
    .set({ 'WWW-Authenticate': challenge(issuer, params, scheme), 'Cache-Control': 'no-store' })
    .json({ error: error ?? 'invalid_token', error_description: description });
}

/**
 * The token from `Authorization: Bearer` or `Authorization: DPoP` (RFC 9449 §7.1)
 * or, for form POSTs, the `access_token` field (RFC 6750 §2.1-2.2).
 */
function extractToken(req: Request): { token?: string; problem?: string; scheme?: Scheme } {
  const header = req.get('authorization');
  const body = req.is('application/x-www-form-urlencoded') ? BearerForm.parse(req.body).access_token : undefined;
  if (header !== undefined && body !== undefined) return { problem: 'send the access token once' };
  if (header !== undefined) {
    const m = /^(Bearer|DPoP) ([A-Za-z0-9\-._~+/]+=*)$/i.exec(header);
    if (!m) return { problem: 'the Authorization header must be "Bearer <token>" or "DPoP <token>"' };
    return { token: m[2], scheme: m[1]!.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer' };
  }
  if (typeof body === 'string') return { token: body, scheme: 'Bearer' };
  return {};
}

/**
 * RFC 9449 §7: a DPoP-bound token (`cnf.jkt`) is accepted only with the DPoP
 * scheme and a valid proof of its key (with `ath`); an unbound one only as Bearer.
 * Returns the refusal, or null when the token may be used.
 */
async function dpopRefusal(
  deps: BearerDeps,
  req: Request,
  token: string,
  scheme: Scheme,
  access: AccessContext,
): Promise<{ error: string; description: string } | null> {
  const cnf = access.claims.cnf as { jkt?: unknown } | undefined;
  const jkt = typeof cnf?.jkt === 'string' ? cnf.jkt : undefined;
  if (scheme === 'Bearer')
    return jkt ? { error: 'invalid_token', description: 'this access token is DPoP-bound: send it as "DPoP <token>" with a DPoP proof' } : null;
  const { proof, problem } = dpopHeader(req);
  if (problem) return { error: 'invalid_dpop_proof', description: problem };
  if (!proof) return { error: 'invalid_dpop_proof', description: 'a DPoP proof is required' };
  const result = await verifyDpopProof(deps.store, proof, { method: req.method, url: dpopRequestUrl(deps.issuer, req), accessToken: token });
  if (!result.ok) return { error: 'invalid_dpop_proof', description: result.description };
  if (!jkt) return { error: 'invalid_token', description: 'this access token is not DPoP-bound: send it as "Bearer <token>"' };
  if (result.jkt !== jkt) return { error: 'invalid_token', description: 'the DPoP proof is not signed by the key the access token is bound to' };
  return null;
}

/**
 * The scope check of requireAccessToken on its own, for routes that must check
 * something else first (after `requireAccessToken(deps, [])`): the same 403
 * insufficient_scope answer.
 */
export function requireScopes(deps: Pick<BearerDeps, 'issuer'>, scopes: string[]): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const missing = scopes.filter((s) => !req.access?.scope.includes(s));
    if (missing.length)
      return deny(res, deps.issuer, 403, 'insufficient_scope', `this request needs the scope ${missing.join(' ')}`, { scope: scopes.join(' ') });
    next();
  };
}

/**
 * After `requireAccessToken(deps, [])`: the token must carry at least one of
 * `scopes` (an endpoint several scope families reach); else 403
 * insufficient_scope naming them all.
 */
export function requireAnyScope(deps: Pick<BearerDeps, 'issuer'>, scopes: readonly string[]): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (scopes.some((s) => req.access?.scope.includes(s))) return next();
    deny(res, deps.issuer, 403, 'insufficient_scope', `this request needs one of the scopes ${scopes.join(', ')}`, { scope: scopes.join(' ') });
  };
}

/** Requires a valid access token carrying every scope in `scopes`. */
export function requireAccessToken(deps: BearerDeps, scopes: string[]): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const { token, problem, scheme = 'Bearer' } = extractToken(req);
    if (problem) return deny(res, deps.issuer, 400, 'invalid_request', problem);
    if (!token) return deny(res, deps.issuer, 401, undefined, 'an access token is required');
    const access = await authenticateAccessToken(deps, token);
    if (!access) return deny(res, deps.issuer, 401, 'invalid_token', 'the access token is invalid, expired or revoked', {}, scheme);
    const refusal = await dpopRefusal(deps, req, token, scheme, access);
    if (refusal) return deny(res, deps.issuer, 401, refusal.error, refusal.description, {}, 'DPoP');
    const missing = scopes.filter((s) => !access.scope.includes(s));
    if (missing.length)
      return deny(res, deps.issuer, 403, 'insufficient_scope', `this request needs the scope ${missing.join(' ')}`, { scope: scopes.join(' ') });
    req.access = access;
    next();
  };
}
