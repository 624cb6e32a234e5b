// PKCE (RFC 7636), S256 only: "plain" would hand the verifier to anyone who
// sees the authorization request. The checks of every endpoint that takes a
// challenge (authorization, device authorization) or redeems one with its
// verifier (the token endpoint's code grants, step-up verification).
import { createHash, timingSafeEqual } from 'node:crypto';

/** code_verifier: 43-128 characters from [A-Za-z0-9-._~]. */
export function isValidCodeVerifier(v: string): boolean {
  return /^[A-Za-z0-9\-._~]{43,128}$/.test(v);
}

/** code_challenge for S256: exactly 43 base64url characters (a SHA-256 digest, unpadded). */
export function isValidS256Challenge(c: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(c);
}

/** BASE64URL(SHA-256(ASCII(verifier))), no padding. */
export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Constant-time check that the verifier hashes to the challenge; false for an invalid verifier. */
export function verifyPkce(verifier: string, challenge: string): boolean {
  if (!isValidCodeVerifier(verifier)) return false;
  const expected = Buffer.from(s256Challenge(verifier));
  const actual = Buffer.from(challenge);
  // timingSafeEqual throws on unequal lengths; the length of a challenge is no secret.
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/**
 * Why a request's code_challenge and code_challenge_method are not S256 PKCE
 * (an invalid_request), or null. Sending neither is not a problem here: the
 * endpoint decides whether PKCE is required.
 */
export function challengeProblem(challenge: unknown, method: unknown): string | null {
  if (method !== undefined && method !== 'S256') return 'code_challenge_method must be S256 (plain is not supported)';
  if (challenge === undefined && method !== undefined) return 'code_challenge_method without code_challenge';
  if (challenge !== undefined && method === undefined) return 'code_challenge_method=S256 is required with code_challenge';
  if (challenge !== undefined && (typeof challenge !== 'string' || !isValidS256Challenge(challenge))) return 'code_challenge must be 43 base64url characters';
  return null;
}

/** Why a code_verifier sent to redeem something is malformed (an invalid_request), or null; absent is not malformed. */
export function verifierFormatProblem(verifier: string | undefined): string | null {
  return verifier !== undefined && !isValidCodeVerifier(verifier) ? 'code_verifier must be 43-128 characters of [A-Za-z0-9-._~]' : null;
}

/**
 * Why `verifier` does not redeem what was issued with `challenge` (an
 * invalid_grant), or null. `issuedBy` names the request that had no challenge,
 * for a verifier sent anyway: the request was altered on the way (PKCE downgrade).
 */
export function verifierMismatch(challenge: string | null | undefined, verifier: string | undefined, issuedBy: string): string | null {
  if (!challenge) return verifier !== undefined ? `${issuedBy} had no code_challenge` : null;
  if (verifier === undefined) return 'code_verifier is required';
  return verifyPkce(verifier, challenge) ? null : 'code_verifier does not match the code_challenge';
}
