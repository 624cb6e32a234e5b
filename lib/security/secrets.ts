// Random secrets, their hashes, and constant-time comparison. Every token, code
// and client secret Keyflow issues is a 256-bit random value stored only as a
// SHA-256 hash: a database dump or workflow history never holds a usable secret.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

/** A 256-bit random value, base64url (43 characters). */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** A random identifier that is not a secret (client ids, document ids). */
export function newId(): string {
  return randomUUID();
}

/** SHA-256 of a secret, base64url: what is stored and passed to workflows. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url');
}

/** Compares two strings in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  // Compare against itself on length mismatch so the timing does not reveal the length check.
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

/** True when `secret` hashes to `expectedHash`, compared in constant time. */
export function verifySecret(secret: string, expectedHash: string): boolean {
  return constantTimeEqual(hashSecret(secret), expectedHash);
}
