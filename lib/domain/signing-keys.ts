// Signing key records. The private part is sealed with the KEK (security/kek.ts).
import type { Sealed } from '../security/kek.js';

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
