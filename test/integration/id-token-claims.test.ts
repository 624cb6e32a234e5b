// Which claims an ID token releases by scope: `role` goes with
// `profile` (like name and username), not with `openid` alone.
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { RunningApi } from '../../api/server.js';
import { createUser } from '../../lib/store/users.js';
import { startTestApi } from '../support/harness.js';
import { uniqueEmail } from '../../tools/fixtures/users.js';
import { FLOW_PASSWORD, newTestRp, runCodeFlow } from '../support/token-flow.js';

let api: RunningApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.stop());

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
