// Signing key records. The private part is sealed with the KEK (keys/kek.ts).
import type { Sealed } from '../security/kek.js';
import type { Store } from './db.js';

export type SigningAlg = 'ML-DSA-65' | 'RS256';

export interface SigningKeyDoc {
  _id: string; // kid: the RFC 7638 thumbprint of the public key
  alg: SigningAlg;
  /** 1 for the first key of an algorithm, +1 per rotation; unique per alg. */
  generation: number;
  status: 'active' | 'retired';
  publicJwk: Record<string, string>;
  /** ML-DSA-65: the 32-byte seed; RS256: PKCS#8 DER. */
  privateKey: Sealed;
  createdAt: Date;
  retiredAt: Date | null;
}

export function listSigningKeys(store: Store, filter: Partial<Pick<SigningKeyDoc, 'status' | 'alg'>> = {}) {
  return store.signingKeys.find(filter, { sort: { alg: 1, generation: 1 } }).toArray();
}
