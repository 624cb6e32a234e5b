// A FAPI 2.0 client as a test drives it: registered in the `fapi2` profile
// with an ES256 key for private_key_jwt, a DPoP key of its own, and the
// requests it makes (client assertions, DPoP proofs, PAR, the token request).
import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import type { NewClientInput } from '../../lib/model/clients.js';
import { JWT_BEARER_ASSERTION_TYPE } from '../../api/protocol/shared/client-assertion.js';
import { newRp } from '../../tools/fixtures/clients.js';
import { newClientKey, type ClientKey, type ClientKeyAlg } from './client-keys.js';
import type { ApiUnderTest } from './harness.js';
import { postForm, type Answer } from './http.js';

export const FAPI_REDIRECT = 'https://fapi-rp.example/cb';

export interface DpopKey {
  alg: ClientKeyAlg;
  privateKey: CryptoKey;
  jwk: JWK;
  jkt: string;
}

export async function newDpopKey(alg: ClientKeyAlg = 'ES256'): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  const jwk = await exportJWK(publicKey);
  return { alg, privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, 'sha256') };
}

/** A DPoP proof (RFC 9449 §4.2) for `htm` `htu`, with `ath` when it goes with an access token. */
export function dpopProof(key: DpopKey, htm: string, htu: string, accessToken?: string): Promise<string> {
  const claims: Record<string, unknown> = { htm, htu, jti: randomUUID(), iat: Math.floor(Date.now() / 1000) };
  if (accessToken !== undefined) claims.ath = createHash('sha256').update(accessToken).digest('base64url');
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, typ: 'dpop+jwt', jwk: key.jwk }).sign(key.privateKey);
}

export interface FapiClient {
  id: string;
  key: ClientKey;
  dpop: DpopKey;
  /** private_key_jwt form fields: an assertion for `aud` (the issuer unless given), signed with the client's key. */
  authentication: (o?: { aud?: string; key?: ClientKey }) => Promise<Record<string, string>>;
  /** POST a form to `path` with the client's authentication (and `headers`). */
  post: (path: string, body: Record<string, string>, headers?: Record<string, string>) => Promise<Answer>;
}

/** A FAPI 2.0 client: private_key_jwt with an ES256 key (and the public `extraKeys`), PS256 tokens, https redirect URI; `overrides` on top. */
export async function newFapiClient(api: ApiUnderTest, overrides: Partial<NewClientInput> = {}, extraKeys: ClientKey[] = []): Promise<FapiClient> {
  const key = await newClientKey('ES256');
  const rp = await newRp(api.deps, {
    name: 'FAPI RP',
    redirectUris: [{ type: 'equals', value: FAPI_REDIRECT }],
    allowedScopes: ['openid', 'profile', 'offline_access'],
    tokenEndpointAuthMethod: 'private_key_jwt',
    jwks: { keys: [key.jwk, ...extraKeys.map((k) => k.jwk)] },
    idTokenSignedResponseAlg: 'PS256',
    fapiProfile: 'fapi2',
    ...overrides,
  });
  const issuer = api.deps.config.issuer;
  const authentication = async (o: { aud?: string; key?: ClientKey } = {}) => {
    const signer = o.key ?? key;
    const iat = Math.floor(Date.now() / 1000);
    const jwt = await new SignJWT({ iss: rp.id, sub: rp.id, aud: o.aud ?? issuer, iat, exp: iat + 60, jti: randomUUID() })
      .setProtectedHeader({ alg: signer.alg, kid: signer.kid })
      .sign(signer.privateKey);
    return { client_id: rp.id, client_assertion_type: JWT_BEARER_ASSERTION_TYPE, client_assertion: jwt };
  };
  return {
    id: rp.id,
    key,
    dpop: await newDpopKey(),
    authentication,
    post: async (path, body, headers = {}) => postForm(issuer, path, { ...(await authentication()), ...body }, headers),
  };
}
