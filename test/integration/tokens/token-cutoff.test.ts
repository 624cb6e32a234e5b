// Refresh and introspection read the grant alone (the client is the caller,
// which just authenticated; the user's status comes from a lookup cached for
// 2 s): that holds because every path that disables or deletes a user, or
// deactivates a client, revokes the grants before it answers. Each such path
// is taken here (the admin API and the CLI; the admin console calls the same
// changes), and the tokens are refused at once: introspection says inactive,
// a refresh is invalid_grant (or invalid_client, for a deactivated client),
// UserInfo is 401. And where a revocation did not finish (simulated by a write
// to the store alone), the cached status bounds the delay to 2 s.
import type { UserDoc } from '../../../lib/model/users.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { skipTime } from '../../support/clock.js';
import { cliOn } from '../../support/cli.js';
import { testDatabase } from '../../support/database.js';
import { getUserinfo, postForm, requestJson } from '../../support/http.js';
import { mintAccessToken } from '../../support/minted-token.js';
import { FLOW_PASSWORD, newTestRp, runCodeFlow, type TestRp } from '../../support/token-flow.js';
import { newUser } from '../../../tools/fixtures/users.js';

const database = testDatabase('token_cutoff');
let admin: UserDoc;
const api = useTestApi(database.env);
beforeAll(async () => {
  ({ user: admin } = await newUser(api.deps, { prefix: 'cutoff-admin', password: FLOW_PASSWORD, admin: true }));
}, 60_000);

const cli = cliOn(database.env);

/** A new user's tokens (with a refresh token) from a new RP, checked live first. */
async function liveTokens() {
  const rp = await newTestRp(api);
  const { tokens, user } = await runCodeFlow(api, rp, 'openid offline_access');
  expect((await introspect(rp, tokens.access_token)).active).toBe(true);
  expect((await introspect(rp, tokens.refresh_token)).active).toBe(true);
  return { rp, tokens: tokens, user };
}

const introspect = async (rp: TestRp, token: string) => (await postForm(api, '/api/oauth/introspect', { token }, rp.auth)).body;
const refresh = (rp: TestRp, token: string) => postForm(api, '/api/oauth/token', { grant_type: 'refresh_token', refresh_token: token }, rp.auth);

/** The tokens are refused at once, wherever they are presented. */
async function expectCutOff(rp: TestRp, tokens: Json, refreshError = 'invalid_grant') {
  expect((await getUserinfo(api, tokens.access_token)).status).toBe(401);
  if (refreshError === 'invalid_grant') {
    expect(await introspect(rp, tokens.access_token)).toEqual({ active: false });
    expect(await introspect(rp, tokens.refresh_token)).toEqual({ active: false });
  }
  expect((await refresh(rp, tokens.refresh_token)).body.error).toBe(refreshError);
}

const adminApi = async (method: string, path: string, scope: string[], body?: unknown) =>
  requestJson(`${api.url}${path}`, method, { token: await mintAccessToken(api, admin._id, scope), body });

describe("a user's tokens stop at once", () => {
  it('when an admin disables the user through the admin API', async () => {
    const { rp, tokens, user } = await liveTokens();
    expect((await adminApi('PATCH', `/api/oauth/me/admin/users/${user._id}`, ['admin:users:write'], { disabled: true })).res.status).toBe(200);
    await expectCutOff(rp, tokens);
  });

  it('when an operator disables the user with the CLI', async () => {
    const { rp, tokens, user } = await liveTokens();
    await cli.ok('users', 'disable', user._id);
    await expectCutOff(rp, tokens);
  });

  it('when an admin deletes the user through the admin API', async () => {
    const { rp, tokens, user } = await liveTokens();
    expect((await adminApi('DELETE', `/api/oauth/me/admin/users/${user._id}`, ['admin:users:delete'])).res.status).toBe(204);
    await expectCutOff(rp, tokens);
  });

  it('when an operator deletes the user with the CLI', async () => {
    const { rp, tokens, user } = await liveTokens();
    await cli.ok('users', 'delete', user._id);
    await expectCutOff(rp, tokens);
  });

  it('when a disable did not get to revoke the grants (the store alone says disabled): within the 2 s the status is cached', async () => {
    const { rp, tokens, user } = await liveTokens();
    await api.deps.store.users.updateOne({ _id: user._id }, { $set: { disabled: true } });
    skipTime(2_100);
    expect(await introspect(rp, tokens.access_token)).toEqual({ active: false });
    expect(await introspect(rp, tokens.refresh_token)).toEqual({ active: false });
    expect((await refresh(rp, tokens.refresh_token)).body.error).toBe('invalid_grant');
    expect((await getUserinfo(api, tokens.access_token)).status).toBe(401);
  });
});

describe("a client's tokens stop at once", () => {
  it('when an admin deactivates the client through the admin API', async () => {
    const { rp, tokens } = await liveTokens();
    expect((await adminApi('PATCH', `/api/oauth/me/admin/apps/${rp.id}`, ['admin:config:write'], { active: false })).res.status).toBe(200);
    // Its grants are revoked: UserInfo refuses the access token; the client itself can no longer authenticate.
    skipTime(2_100);
    await expectCutOff(rp, tokens, 'invalid_client');
  });

  it('when an operator deactivates the client with the CLI', async () => {
    const { rp, tokens } = await liveTokens();
    await cli.ok('apps', 'deactivate', rp.id);
    skipTime(2_100);
    await expectCutOff(rp, tokens, 'invalid_client');
  });
});
