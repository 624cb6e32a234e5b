// The keys batch heads are verified with: the site's RS256 keys, each derived
// from its sealed private key (opened with the KEK), so that a public key
// written into MongoDB by someone without the KEK is never trusted. Keyed by
// the RFC 7638 thumbprint (a key's kid).
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { open, type Kek } from '../security/kek.js';
import type { Store } from '../store/db.js';
import { listSigningKeys } from '../store/signing-keys.js';

export type VerificationKeys = Map<string, KeyObject>;

export async function siteVerificationKeys(store: Store, kek: Kek): Promise<VerificationKeys> {
  const keys: VerificationKeys = new Map();
  for (const doc of await listSigningKeys(store, { alg: 'RS256' })) {
    const secret = open(kek, doc.privateKey, doc._id, `signing key ${doc._id}`);
    const publicKey = createPublicKey(createPrivateKey({ key: secret, format: 'der', type: 'pkcs8' }));
    const kid = await calculateJwkThumbprint(publicKey.export({ format: 'jwk' }));
    keys.set(kid, publicKey);
  }
  return keys;
}

/** Keys from a JWK Set (an export's, or one the operator pinned), by thumbprint. */
export async function jwksVerificationKeys(jwks: { keys: JWK[] }): Promise<VerificationKeys> {
  const keys: VerificationKeys = new Map();
  for (const jwk of jwks.keys) {
    if (jwk.kty !== 'RSA') continue;
    const publicKey = createPublicKey({ key: { kty: jwk.kty, n: jwk.n!, e: jwk.e! }, format: 'jwk' });
    keys.set(await calculateJwkThumbprint({ kty: 'RSA', n: jwk.n!, e: jwk.e! }), publicKey);
  }
  return keys;
}

export function publicJwksOf(keys: VerificationKeys): { keys: JWK[] } {
  return { keys: [...keys.values()].map((k) => k.export({ format: 'jwk' }) as JWK) };
}
