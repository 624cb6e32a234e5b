// Keys a client signs with (private_key_jwt assertions, request objects): a
// fresh key pair of an algorithm Keyflow verifies, its public JWK ready for
// the client's jwks or jwks_uri.
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';

export type ClientKeyAlg = 'RS256' | 'PS256' | 'ES256' | 'EdDSA';

export interface ClientKey {
  alg: ClientKeyAlg;
  kid: string;
  privateKey: CryptoKey;
  /** The public key with its kid, alg and `use: sig`. */
  jwk: JWK;
}

export async function newClientKey(alg: ClientKeyAlg): Promise<ClientKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  const kid = randomUUID();
  return { alg, kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}
