// Deleting a client (app API, RFC 7592, /account/apps) revokes its grants and
// ends their refresh families; and whatever a deletion did or did not finish,
// the bearer check, introspection and refresh refuse the tokens of a client or
// a user that no longer exists.
import { deleteClient } from '../../../lib/store/clients.js';
import { createUser } from '../../../lib/store/users.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { skipTime } from '../../support/clock.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { expectFamilyRevoked, FLOW_PASSWORD, FLOW_REDIRECT, newTestRp, runCodeFlow, type TestRp } from '../../support/token-flow.js';
import { getUserinfo, postForm } from '../../support/http.js';

const api = useTestApi();

const userinfo = (accessToken: string) => getUserinfo(api.issuer, accessToken);

/** An app owner, signed in, with an access token of a dashboard client carrying apps:read and apps:write. */
async function owner() {
  const email = uniqueEmail('owner');
  const doc = await createUser(api.deps.store, { email, password: FLOW_PASSWORD });
  const dashboard = await newTestRp(api, { allowedScopes: ['openid', 'apps:read', 'apps:write'] });
  const { tokens, agent } = await runCodeFlow(api, dashboard, 'openid apps:read apps:write', { user: { email, doc } });
  return { user: doc, agent, token: tokens.access_token as string, dashboard: tokens };
}

/** A client of `ownerId`, and tokens (with a refresh family) a new user got from it. */
async function ownedAppWithTokens(ownerId: string) {
  const app = await newTestRp(api, { allowedScopes: ['openid', 'profile', 'offline_access'], ownerUserId: ownerId });
  const { tokens } = await runCodeFlow(api, app, 'openid profile offline_access');
  expect((await userinfo(tokens.access_token)).status).toBe(200);
  return { app, tokens };
}

async function expectRevoked(tokens: Json) {
  const refused = await userinfo(tokens.access_token);
  expect(refused.status).toBe(401);
  expect(refused.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  await expectFamilyRevoked(api, tokens.access_token);
}

describe('deleting a client', () => {
  it("through the app API revokes its grants and ends their refresh families, and no other client's", async () => {
    const me = await owner();
    const { app, tokens } = await ownedAppWithTokens(me.user._id);
    const res = await fetch(`${api.issuer}/api/oauth/me/apps/${app.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${me.token}` } });
    expect(res.status).toBe(204);
    await expectRevoked(tokens);
    // The owner's token from another client still works.
    expect((await fetch(`${api.issuer}/api/oauth/me/apps`, { headers: { authorization: `Bearer ${me.token}` } })).status).toBe(200);
  });

  it('through RFC 7592 DELETE revokes its grants and ends their refresh families', async () => {
    const me = await owner();
    const registered = await fetch(`${api.issuer}/api/oauth/register`, {
      method: 'POST',
      headers: { authorization: `Bearer ${me.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Registered RP', redirect_uris: [FLOW_REDIRECT], scope: 'openid profile offline_access' }),
    });
    expect(registered.status).toBe(201);
    const doc = (await registered.json()) as Json;
    const rp: TestRp = { id: doc.client_id, auth: { authorization: `Basic ${Buffer.from(`${doc.client_id}:${doc.client_secret}`).toString('base64')}` } };
    const { tokens } = await runCodeFlow(api, rp, 'openid offline_access');
    const res = await fetch(doc.registration_client_uri, { method: 'DELETE', headers: { authorization: `Bearer ${doc.registration_access_token}` } });
    expect(res.status).toBe(204);
    await expectRevoked(tokens);
  });

  it('on the /account/apps page revokes its grants and ends their refresh families', async () => {
    const me = await owner();
    const { app, tokens } = await ownedAppWithTokens(me.user._id);
    const page = await me.agent.get('/account/apps');
    expect(page.res.status).toBe(200);
    const done = await me.agent.submit(await page.res.text(), `/account/apps/${app.id}/delete`, {});
    expect(new URL(done.url).pathname).toBe('/account/apps');
    await expectRevoked(tokens);
  });

  it('leaves nothing its tokens can use even when only the client document went', async () => {
    const me = await owner();
    const { app, tokens } = await ownedAppWithTokens(me.user._id);
    // The client is gone but its grants were never revoked (as if the deletion stopped halfway).
    expect(await deleteClient(api.deps.store, app.id)).toBe(true);
    expect((await userinfo(tokens.access_token)).status).toBe(401);
  });
});

describe('tokens of a user who no longer exists', () => {
  it("are refused by Keyflow's API, introspection and refresh, even when only the user document went", async () => {
    const rp = await newTestRp(api, { allowedScopes: ['openid', 'apps:read', 'offline_access'] });
    const { tokens, user } = await runCodeFlow(api, rp, 'openid apps:read offline_access');
    const apps = () => fetch(`${api.issuer}/api/oauth/me/apps`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect((await apps()).status).toBe(200);
    expect((await postForm(api, '/api/oauth/introspect', { token: tokens.refresh_token }, rp.auth)).body.active).toBe(true);

    await api.deps.store.users.deleteOne({ _id: user._id });
    expect((await apps()).status).toBe(401);
    // Introspection and refresh read the grant alone and take the user's status from a lookup cached for 2 s (every
    // deletion revokes the grants before it answers: tokens/token-cutoff.test.ts); past that bound they refuse too.
    skipTime(2_100);
    expect((await postForm(api, '/api/oauth/introspect', { token: tokens.access_token }, rp.auth)).body).toEqual({ active: false });
    expect((await postForm(api, '/api/oauth/introspect', { token: tokens.refresh_token }, rp.auth)).body).toEqual({ active: false });
    const refreshed = await postForm(api, '/api/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, rp.auth);
    expect([refreshed.res.status, refreshed.body.error]).toEqual([400, 'invalid_grant']);
  });
});
