// Verification of JWTs Keyflow itself issued (access tokens at UserInfo and
// /api/oauth/me, ID token hints at logout), against the keys the keyring publishes.
import { constants, createPublicKey, verify as nodeVerify } from 'node:crypto';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { SIGNING_ALGS, type SigningAlg } from '../model/signing-keys.js';
import type { Keyring } from './keyring.js';
import { nativeMlDsaAvailable } from './mldsa.js';
import { decodeBase64urlStrict } from '../security/base64url.js';

export interface VerifiedJwt {
  header: { alg: string; kid: string; typ?: string };
  claims: Record<string, unknown>;
}

function decodeJson(part: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The header and claims when the signature is valid under a published key, else null. Claims are not checked here. */
export async function verifyOwnJwt(keyring: Keyring, token: string): Promise<VerifiedJwt | null> {
  if (token.length > 16_384) return null;
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const [h, p, s] = parts as [string, string, string];
  const header = decodeJson(h);
  if (!header || typeof header.kid !== 'string' || !SIGNING_ALGS.includes(header.alg as SigningAlg)) return null;
  const jwk = await keyring.publicJwk(header.kid);
  if (!jwk || jwk.alg !== header.alg) return null;
  const input = Buffer.from(`${h}.${p}`, 'ascii');
  // One spelling per signature: a token is accepted exactly as it was issued.
  const signature = decodeBase64urlStrict(s);
  if (!signature) return null;
  let valid: boolean;
  if (header.alg !== 'ML-DSA-65') {
    const key = createPublicKey({ key: jwk, format: 'jwk' });
    if (header.alg === 'PS256') valid = nodeVerify('sha256', input, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }, signature);
    else if (header.alg === 'ES256') valid = nodeVerify('sha256', input, { key, dsaEncoding: 'ieee-p1363' }, signature);
    else valid = nodeVerify('sha256', input, key, signature);
  } else if (nativeMlDsaAvailable()) {
    valid = nodeVerify(null, input, createPublicKey({ key: jwk, format: 'jwk' }), signature);
  } else {
    valid = ml_dsa65.verify(signature, input, Buffer.from(jwk.pub as string, 'base64url'));
  }
  if (!valid) return null;
  const claims = decodeJson(p);
  return claims ? { header: header as VerifiedJwt['header'], claims } : null;
}
