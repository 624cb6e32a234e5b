// PKCE (RFC 7636), S256 only: "plain" would hand the verifier to anyone who sees the authorization request.
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
