// DPoP proofs (RFC 9449 §4.3): a JWT signed by the client's key, with the
// public key in its header, naming the request (htm, htu), fresh (iat), single
// use (jti) and, at resources, naming the access token (ath).
import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { calculateJwkThumbprint, EmbeddedJWK, jwtVerify, type JWK } from 'jose';
import { CLIENT_KEY_ALGS } from '../../../lib/model/client-key-algs.js';
import { FAPI2_CLIENT_ALGS, isFapi2, type FapiProfile } from '../../../lib/model/fapi2.js';
import type { Store } from '../../../lib/store/db.js';
import { claimOnce } from '../../../lib/store/single-use.js';
import { currentDate, currentTimeMs } from '../../../lib/runtime/clock.js';

export const DPOP_ALGS: string[] = [...CLIENT_KEY_ALGS];

const MAX_SKEW_S = 60;
const MAX_PROOF_CHARS = 8_192;
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

export type DpopResult = { ok: true; jkt: string } | { ok: false; description: string };

/** base64url(SHA-256(access token)): the proof's `ath` at resources. */
export function accessTokenHash(token: string): string {
  return createHash('sha256').update(token, 'ascii').digest('base64url');
}

/**
 * The request's URL as the client sees it: the issuer and the path, without
 * query. Computed from the issuer so a reverse proxy does not change it.
 */
export function dpopRequestUrl(issuer: string, req: Request): string {
  return `${issuer}${req.originalUrl.split('?')[0]!}`;
}

/** The one `DPoP` header of the request: none, one proof, or a problem (several, or not a JWT). */
export function dpopHeader(req: Request): { proof?: string; problem?: string } {
  const value = req.get('dpop');
  if (value === undefined) return {};
  // Repeated headers are joined with ", " by Node: a compact JWT has neither.
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(value) || value.length > MAX_PROOF_CHARS) {
    return { problem: 'the DPoP header must be exactly one proof JWT' };
  }
  return { proof: value };
}

/** Strips query and fragment and normalises the URL (RFC 9449 §4.3 point 9). */
function normalisedUrl(value: string): string | null {
  try {
    const url = new URL(value);
    url.search = '';
    url.hash = '';
    return url.href;
  } catch {
    return null;
  }
}

/**
 * Verifies a proof for the request `method` `url` (and `accessToken` at a
 * resource) and uses up its jti. Returns the key's RFC 7638 thumbprint.
 * `algorithms`: fewer than DPOP_ALGS for a client held to a profile (FAPI 2.0).
 */
export async function verifyDpopProof(
  store: Store,
  proof: string,
  request: { method: string; url: string; accessToken?: string; algorithms?: readonly string[] },
): Promise<DpopResult> {
  let payload: Record<string, unknown>;
  let jwk: JWK;
  const algorithms = [...(request.algorithms ?? DPOP_ALGS)];
  try {
    const verified = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms, currentDate: currentDate() });
    payload = verified.payload;
    jwk = verified.protectedHeader.jwk as JWK;
  } catch (err) {
    const code = (err as { code?: string }).code;
    return { ok: false, description: code === 'ERR_JOSE_ALG_NOT_ALLOWED' ? `DPoP proof algorithms: ${algorithms.join(', ')}` : 'the DPoP proof is invalid' };
  }
  if (!jwk || PRIVATE_MEMBERS.some((m) => m in jwk)) return { ok: false, description: 'the DPoP proof jwk must be a public key' };
  const { htm, htu, iat, jti, ath } = payload;
  if (htm !== request.method) return { ok: false, description: 'DPoP proof htm does not match the request method' };
  if (typeof htu !== 'string' || normalisedUrl(htu) !== normalisedUrl(request.url))
    return { ok: false, description: 'DPoP proof htu does not match the request URL' };
  const now = Math.floor(currentTimeMs() / 1000);
  if (typeof iat !== 'number' || Math.abs(now - iat) > MAX_SKEW_S) return { ok: false, description: 'DPoP proof iat is missing or not recent' };
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256) return { ok: false, description: 'DPoP proof jti is missing or invalid' };
  if (request.accessToken !== undefined) {
    if (ath !== accessTokenHash(request.accessToken)) return { ok: false, description: 'DPoP proof ath does not match the access token' };
  }
  const jkt = await calculateJwkThumbprint(jwk, 'sha256');
  // A proof is usable while its iat is within the window: guard it that long.
  const ttlMs = (iat + MAX_SKEW_S + 5) * 1000 - currentTimeMs();
  if (!(await claimOnce(store, `dpop:${jkt}:${jti}`, Math.max(ttlMs, 1_000)))) return { ok: false, description: 'the DPoP proof was already used (jti)' };
  return { ok: true, jkt };
}

/**
 * The DPoP proof a client sent to a back-channel endpoint (token, PAR), if
 * any, verified for a POST to it: none, the key's thumbprint, or why it is
 * refused (`invalid_dpop_proof`). A FAPI 2.0 client's proof is held to the
 * profile's algorithms (FAPI 2.0 §5.4.1), as every other JWS it signs.
 */
export async function clientDpopProof(
  deps: { store: Store; issuer: string },
  req: Request,
  client: { fapiProfile?: FapiProfile | null },
): Promise<{ kind: 'none' } | { kind: 'ok'; jkt: string } | { kind: 'error'; description: string }> {
  const { proof, problem } = dpopHeader(req);
  if (problem) return { kind: 'error', description: problem };
  if (!proof) return { kind: 'none' };
  const verified = await verifyDpopProof(deps.store, proof, {
    method: 'POST',
    url: dpopRequestUrl(deps.issuer, req),
    algorithms: isFapi2(client) ? FAPI2_CLIENT_ALGS : undefined,
  });
  return verified.ok ? { kind: 'ok', jkt: verified.jkt } : { kind: 'error', description: verified.description };
}
