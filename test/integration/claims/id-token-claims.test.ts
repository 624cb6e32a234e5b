// Which claims an ID token releases by scope: `role` goes with
// `profile` (like name and username), not with `openid` alone; and `at_hash`,
// the hash of the access token issued with it, by the ID token's algorithm.
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { createUser } from '../../../lib/store/users.js';
import { useTestApi } from '../../support/harness.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { FLOW_PASSWORD, newTestRp, runCodeFlow } from '../../support/token-flow.js';
import { postForm } from '../../support/http.js';

const api = useTestApi();

async function idToken(scope: string, admin = false) {
  const rp = await newTestRp(api);
  const email = uniqueEmail('claims');
  const doc = await createUser(api.deps.store, { email, password: FLOW_PASSWORD, admin });
  const { tokens } = await runCodeFlow(api, rp, scope, { user: { email, doc } });
  const issuer = api.deps.config.issuer;
  return (await jwtVerify(tokens.id_token, createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`)), { issuer, audience: rp.id })).payload;
}

describe('the role claim', () => {
  it('is absent from the ID token of openid alone', async () => {
    const claims = await idToken('openid email', true);
    expect(claims).not.toHaveProperty('role');
    expect(claims).toMatchObject({ email: expect.any(String), sub: expect.any(String) });
  });

  it('is released with profile: user or admin', async () => {
    expect(await idToken('openid profile')).toMatchObject({ role: 'user', preferred_username: expect.any(String) });
    expect((await idToken('openid profile', true)).role).toBe('admin');
  });
});

describe('at_hash', () => {
  /** OIDC Core §3.1.3.6 as an RP library computes it (WebCrypto; for ML-DSA, cSHAKE256 as oauth4webapi does). */
  async function expectedAtHash(accessToken: string, alg: string): Promise<string> {
    const hash = alg === 'RS256' ? 'SHA-256' : { name: 'cSHAKE256', length: 512, outputLength: 512 };
    const digest = new Uint8Array(await crypto.subtle.digest(hash, new TextEncoder().encode(accessToken)));
    return Buffer.from(digest.slice(0, digest.length / 2)).toString('base64url');
  }

  it.each(['RS256', 'ML-DSA-65'] as const)('names the access token issued with a %s ID token (a refresh issues no ID token)', async (alg) => {
    const rp = await newTestRp(api, { idTokenSignedResponseAlg: alg });
    const { tokens } = await runCodeFlow(api, rp, 'openid offline_access');
    expect(decodeProtectedHeader(tokens.id_token).alg).toBe(alg);
    expect(decodeJwt(tokens.id_token).at_hash).toBe(await expectedAtHash(tokens.access_token, alg));
    // A refresh answers with an access token only: no ID token to carry a hash of it.
    const refreshed = await postForm(api, '/api/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, rp.auth);
    expect(refreshed.body.access_token).toEqual(expect.any(String));
    expect(refreshed.body).not.toHaveProperty('id_token');
  });
});
