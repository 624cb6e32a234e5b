// The left-half hashes an ID token carries of values issued with it (OIDC
// Core §3.1.3.6 `at_hash`; `c_hash` and `s_hash` use the same rule): the
// left half of the value's hash under the hash of the ID token's `alg`,
// base64url. ML-DSA-65 names no hash of its own; Keyflow uses SHAKE256 with
// a 512-bit output, as the oauth4webapi and openid-client relying-party
// libraries expect for ML-DSA.
import { createHash } from 'node:crypto';
import type { SigningAlg } from '../model/signing-keys.js';

const HASH_OF: Record<SigningAlg, () => ReturnType<typeof createHash>> = {
  RS256: () => createHash('sha256'),
  PS256: () => createHash('sha256'),
  ES256: () => createHash('sha256'),
  'ML-DSA-65': () => createHash('shake256', { outputLength: 64 }),
};

export function leftHalfHash(value: string, alg: SigningAlg): string {
  const digest = HASH_OF[alg]().update(value, 'ascii').digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}
