// Signing key records. The private part is sealed with the KEK (security/kek.ts);
// when a key is published and signs: model/key-phases.ts.
import type { Sealed } from '../security/kek.js';

/**
 * The algorithms Keyflow signs with, one key (and rotation line) each: ML-DSA-65
 * (post-quantum), RS256 (what every relying party reads), and PS256 and ES256,
 * the ones FAPI 2.0 allows (RSASSA-PSS and ECDSA P-256; a key is never shared
 * between two algorithms).
 */
export const SIGNING_ALGS = ['ML-DSA-65', 'RS256', 'PS256', 'ES256'] as const;
export type SigningAlg = (typeof SIGNING_ALGS)[number];

export interface SigningKeyDoc {
  _id: string; // kid: the RFC 7638 thumbprint of the public key
  alg: SigningAlg;
  /** 1 for the first key of an algorithm, +1 per rotation; unique per alg. */
  generation: number;
  /** The operator's intent: `retired` by `keys retire`. What the key does now is its phase (key-phases.ts). */
  status: 'active' | 'retired';
  publicJwk: Record<string, string>;
  /** ML-DSA-65: the 32-byte seed; RS256, PS256, ES256: PKCS#8 DER. */
  privateKey: Sealed;
  createdAt: Date;
  /** When it starts signing (published from createdAt). */
  signsFrom: Date;
  retiredAt: Date | null;
  /** Set at retirement: when it leaves the JWKS. */
  publishedUntil: Date | null;
}
