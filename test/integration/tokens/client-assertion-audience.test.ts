// CLIENT_ASSERTION_AUDIENCE=issuer-or-token-endpoint: a private_key_jwt
// assertion may also name the token endpoint's URL as its audience (what OIDC
// Core §9 names, and what the OpenID conformance suite sends), still as a
// single string; the default accepts the issuer alone (the audience-injection
// rule: private-key-jwt.test.ts).
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { RunningApi } from '../../../api/server.js';
import { JWT_BEARER_ASSERTION_TYPE } from '../../../api/protocol/shared/client-assertion.js';
import { newRp } from '../../../tools/fixtures/clients.js';
import { startTestApi } from '../../support/harness.js';

let lenient: RunningApi;
let strict: RunningApi;
beforeAll(async () => {
  [lenient, strict] = await Promise.all([startTestApi({ CLIENT_ASSERTION_AUDIENCE: 'issuer-or-token-endpoint' }), startTestApi()]);
});
afterAll(() => Promise.all([lenient?.stop(), strict?.stop()]));

/** Introspection of an unknown token by a private_key_jwt client whose assertion names `aud`: 200 exactly when it authenticated. */
async function introspectWithAudience(api: RunningApi, aud: (issuer: string) => string | string[]): Promise<number> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const kid = randomUUID();
  const { id } = await newRp(api.deps, {
    name: 'audience RP',
    redirectUris: [{ type: 'equals', value: 'https://audience-rp.example/cb' }],
    tokenEndpointAuthMethod: 'private_key_jwt',
    jwks: { keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' }] },
  });
  const issuer = api.deps.config.issuer;
  const now = Math.floor(Date.now() / 1000);
  const jwt = await new SignJWT({ iss: id, sub: id, aud: aud(issuer), iat: now, exp: now + 60, jti: randomUUID() })
    .setProtectedHeader({ alg: 'ES256', kid })
    .sign(privateKey);
  const res = await fetch(`${issuer}/api/oauth/introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: 'unknown', client_assertion_type: JWT_BEARER_ASSERTION_TYPE, client_assertion: jwt }),
  });
  return res.status;
}

describe('the audience of a client assertion', () => {
  it('may be the token endpoint URL when the operator allows it, still as a single string', async () => {
    expect(await introspectWithAudience(lenient, (issuer) => issuer)).toBe(200);
    expect(await introspectWithAudience(lenient, (issuer) => `${issuer}/api/oauth/token`)).toBe(200);
    expect(await introspectWithAudience(lenient, (issuer) => [`${issuer}/api/oauth/token`])).toBe(400);
    expect(await introspectWithAudience(lenient, (issuer) => `${issuer}/api/oauth/par`)).toBe(400);
    expect(await introspectWithAudience(lenient, () => 'https://elsewhere.example/api/oauth/token')).toBe(400);
  });

  it('is the issuer alone by default', async () => {
    expect(await introspectWithAudience(strict, (issuer) => issuer)).toBe(200);
    expect(await introspectWithAudience(strict, (issuer) => `${issuer}/api/oauth/token`)).toBe(400);
  });
});
