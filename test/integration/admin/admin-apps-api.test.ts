// The apps admin API (/api/oauth/me/admin/apps) against a real api, worker and
// webhook receiver: a site admin lists, reads, verifies, deactivates and
// reactivates any app. A deactivated app is refused at every OAuth endpoint
// (authorize: an error page, no redirect; token, PAR, device authorization,
// introspection, revocation: 401 invalid_client; registration management:
// 401), its tokens stop working, and reactivation lets a new code flow work
// while what deactivation revoked stays revoked. is_verified reaches the
// `apps` claim. Guards: admin:* and site:* scopes, a non-admin 403
// not_found (404), a missing scope 403 insufficient_scope, 404, bad input 400.
import type { ClientDoc } from '../../../lib/model/clients.js';
import { hashSecret, newId, newSecret } from '../../../lib/security/secrets.js';
import { auditRecords } from '../../support/audit.js';
import { createClient, findClient } from '../../../lib/store/clients.js';
import { createPersonalAccessToken } from '../../../lib/store/personal-access-tokens.js';
import type { UserDoc } from '../../../lib/model/users.js';
import { s256Challenge } from '../../../lib/model/pkce.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { useTestApi, eventually, type Json } from '../../support/harness.js';
import { skipTime } from '../../support/clock.js';
import { FLOW_PASSWORD, FLOW_REDIRECT, flowAuthorizeUrl, newTestRp, runCodeFlow, type TestRp } from '../../support/token-flow.js';
import { expectApiError, jwtClaims, postForm, requestJson } from '../../support/http.js';
import { addHook, startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';
import { mintAccessToken } from '../../support/minted-token.js';
import { testDatabase } from '../../support/database.js';

const BASE = '/api/oauth/me/admin/apps';
/** How long a change to a client takes to reach the api's cached client lookups. */
const LOOKUP_TTL_MS = 2_100;
let receiver: WebhookReceiver;
let admin: UserDoc;
const HOOK = '/admin-apps';

const api = useTestApi(testDatabase('admin_apps_api').env, { beforeStop: (running) => running.deps.events.idle() });
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  admin = (await newUser(api.deps, { prefix: 'apps-admin', password: FLOW_PASSWORD, admin: true })).user;
  await addHook(api.deps, receiver, HOOK, { name: 'app changes', events: ['admin.app.update'] });
}, 60_000);
afterAll(async () => {
  await receiver.close();
});

const mintedToken = (user: UserDoc, scope: string[], client?: ClientDoc) => mintAccessToken(api, user._id, scope, client);

const call = (token: string | null, method: string, path: string, body?: unknown, contentType?: string) =>
  requestJson(`${api.deps.config.issuer}${path}`, method, { token, body, contentType });

const adminToken = (scope = ['admin:config:read', 'admin:config:write']) => mintedToken(admin, scope);

/** The code of a new authorization at rp for a user signed in with `agent` who consented before, and its verifier. */
async function authorizationCode(agent: HttpUser, rp: TestRp, scope: string): Promise<{ code: string; verifier: string }> {
  const verifier = newSecret();
  const step = await agent.get(flowAuthorizeUrl(api, rp, scope, verifier));
  const code = step.external?.searchParams.get('code');
  if (!code) throw new Error(`no code at ${step.url}`);
  return { code, verifier };
}

describe('admin apps API', () => {
  it('lists, reads and marks apps verified, with their owner; admin.app.update reaches admin webhooks with the actor', async () => {
    const owner = (await newUser(api.deps, { prefix: 'apps-owner', password: FLOW_PASSWORD })).user;
    const name = `Findable app ${newId().slice(0, 8)}`;
    const { client } = await createClient(api.deps.store, {
      name,
      redirectUris: [{ type: 'equals', value: 'https://owned.example/cb' }],
      ownerUserId: owner._id,
    });
    const token = await adminToken();
    const listed = await call(token, 'GET', `${BASE}?q=${encodeURIComponent(name.toLowerCase())}`);
    expect(listed.res.status).toBe(200);
    expect(listed.body.apps).toEqual([expect.objectContaining({ client_id: client._id, name, owner_user_id: owner._id, is_verified: false, is_active: true })]);
    const all = await call(token, 'GET', `${BASE}?limit=500`);
    expect(all.body.apps.map((a: Json) => a.client_id)).toContain(client._id);
    expect(all.text).not.toMatch(/secret_?hash/i);
    const paged = await call(token, 'GET', `${BASE}?limit=1&offset=1`);
    expect(paged.body.apps).toHaveLength(1);
    expect(paged.body.apps[0].client_id).toBe(all.body.apps[1].client_id);

    const one = await call(token, 'GET', `${BASE}/${client._id}`);
    expect(one.body).toMatchObject({ client_id: client._id, owner_user_id: owner._id, is_verified: false });

    const verified = await call(token, 'PATCH', `${BASE}/${client._id}`, { is_verified: true });
    expect(verified.res.status).toBe(200);
    expect(verified.body).toMatchObject({ client_id: client._id, is_verified: true, is_active: true });
    expect((await findClient(api.deps.store, client._id))!.isVerified).toBe(true);
    // The same again changes nothing: 200, no second event.
    expect((await call(token, 'PATCH', `${BASE}/${client._id}`, { is_verified: true })).res.status).toBe(200);

    await eventually(() => expect(receiver.at(HOOK).filter((d) => d.body.data.app_id === client._id)).toHaveLength(1), 30_000);
    const [got] = receiver.at(HOOK).filter((d) => d.body.data.app_id === client._id);
    expect(got!.verified).toBe(true);
    expect(got!.body.event).toBe('admin.app.update');
    expect(got!.body.data).toMatchObject({ app_id: client._id, name, changed: ['is_verified'], is_verified: true, is_active: true });
    // The actor (the admin and the token's client) is in the audit record of the event.
    const records = await auditRecords(api.deps.store, { event: 'client.updated' });
    expect(records.filter((r) => r.data.client_id === client._id)).toEqual([
      expect.objectContaining({
        stream: 'admin',
        actor: expect.objectContaining({ type: 'user', userId: admin._id }),
        subject: expect.objectContaining({ clientId: client._id }),
        data: { client_id: client._id, changed: ['is_verified'] },
      }),
    ]);
    // One record, so one event: the PATCH that changed nothing emitted none (an event is recorded before it is dispatched).
    expect(receiver.at(HOOK).filter((d) => d.body.data.app_id === client._id)).toHaveLength(1);
  });

  it('admits site:config:* tokens; refuses a non-admin (404 not_found, as an unknown path), a missing scope (403 insufficient_scope), unknown apps (404) and bad input (400)', async () => {
    const { client } = await createClient(api.deps.store, { name: 'Guarded app', redirectUris: [{ type: 'equals', value: 'https://guarded.example/cb' }] });
    const site = await mintedToken(admin, ['site:config:read', 'site:config:write']);
    expect((await call(site, 'GET', BASE)).res.status).toBe(200);
    expect((await call(site, 'PATCH', `${BASE}/${client._id}`, { is_verified: false })).res.status).toBe(200);

    const nobody = (await newUser(api.deps, { prefix: 'apps-nonadmin', password: FLOW_PASSWORD })).user;
    const notAdmin = await mintedToken(nobody, ['admin:config:read', 'admin:config:write']);
    expectApiError(await call(notAdmin, 'GET', BASE), 404, 'not_found');
    expectApiError(await call(notAdmin, 'PATCH', `${BASE}/${client._id}`, { active: false }), 404, 'not_found');
    expect((await findClient(api.deps.store, client._id))!.deactivatedAt ?? null).toBeNull();

    const readOnly = await adminToken(['admin:config:read']);
    expect((await call(readOnly, 'GET', `${BASE}/${client._id}`)).res.status).toBe(200);
    expectApiError(await call(readOnly, 'PATCH', `${BASE}/${client._id}`, { is_verified: true }), 403, 'insufficient_scope');
    expectApiError(await call(await adminToken(['admin:users:read']), 'GET', BASE), 403, 'insufficient_scope');
    expect((await call(null, 'GET', BASE)).res.status).toBe(401);

    const token = await adminToken();
    expectApiError(await call(token, 'GET', `${BASE}/no-such-app`), 404, 'not_found');
    expectApiError(await call(token, 'PATCH', `${BASE}/no-such-app`, { active: false }), 404, 'not_found');
    expectApiError(await call(token, 'PATCH', `${BASE}/${client._id}`, { is_verified: 'yes' }), 400, 'invalid_request', /is_verified/);
    expectApiError(await call(token, 'PATCH', `${BASE}/${client._id}`, { name: 'x' }), 400, 'invalid_request', /name/);
    expectApiError(await call(token, 'PATCH', `${BASE}/${client._id}`, {}), 400, 'invalid_request', /is_verified, active or machine_access/);
    expectApiError(await call(token, 'PATCH', `${BASE}/${client._id}`, '{"active": fal'), 400, 'invalid_request');
    expectApiError(await call(token, 'PATCH', `${BASE}/${client._id}`, 'active=false', 'application/x-www-form-urlencoded'), 400, 'invalid_request', /json/);
    expectApiError(await call(token, 'GET', `${BASE}?limit=0`), 400, 'invalid_request', /limit/);
    expectApiError(await call(token, 'GET', `${BASE}?offset=-1`), 400, 'invalid_request', /offset/);
    expect((await call(token, 'DELETE', `${BASE}/${client._id}`)).res.status).toBe(405);
  });
});

describe('a deactivated app', () => {
  it('is refused at every OAuth endpoint, its tokens stop working; reactivated, a new code flow works and revoked tokens stay revoked', async () => {
    const rp = await newTestRp(api, { allowedScopes: ['openid', 'offline_access'] });
    const { tokens, user, email, agent } = await runCodeFlow(api, rp, 'openid offline_access');
    const pending = await authorizationCode(agent, rp, 'openid offline_access');
    const registrationToken = newSecret();
    const registered = (
      await createClient(
        api.deps.store,
        { name: 'Registered app', redirectUris: [{ type: 'equals', value: 'https://registered.example/cb' }] },
        { registrationTokenHash: hashSecret(registrationToken) },
      )
    ).client;
    const managed = () => fetch(`${api.url}/api/oauth/register/${registered._id}`, { headers: { authorization: `Bearer ${registrationToken}` } });
    const introspect = (token: string) => postForm(api, '/api/oauth/introspect', { token }, rp.auth);
    const authorize = () =>
      fetch(`${api.url}/api/oauth/authorize?response_type=code&client_id=${rp.id}&redirect_uri=${encodeURIComponent(FLOW_REDIRECT)}&scope=openid`, {
        redirect: 'manual',
      });
    // Working before: the same requests are answered.
    expect((await introspect(tokens.access_token)).body.active).toBe(true);
    expect((await managed()).status).toBe(200);
    expect(
      (
        await postForm(
          api,
          '/api/oauth/par',
          { response_type: 'code', redirect_uri: FLOW_REDIRECT, scope: 'openid', code_challenge: s256Challenge(newSecret()), code_challenge_method: 'S256' },
          rp.auth,
        )
      ).res.status,
    ).toBe(201);
    const deviceBefore = await postForm(api, '/api/oauth/device_authorization', { scope: 'openid' }, rp.auth);
    expect(deviceBefore.res.status).toBe(200);
    expect((await authorize()).status).toBe(303);

    const token = await adminToken();
    const off = await call(token, 'PATCH', `${BASE}/${rp.id}`, { active: false });
    expect(off.res.status).toBe(200);
    expect(off.body).toMatchObject({ is_active: false, grants_revoked: 1 });
    expect((await call(token, 'PATCH', `${BASE}/${registered._id}`, { active: false })).res.status).toBe(200);
    // Twice is not an error.
    expect((await call(token, 'PATCH', `${BASE}/${rp.id}`, { active: false })).body).toMatchObject({ is_active: false });
    skipTime(LOOKUP_TTL_MS);

    // Its access token: refused at UserInfo.
    const info = await fetch(`${api.url}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(info.status).toBe(401);
    // A token of a grant deactivation did not revoke (minted now) is refused all the same.
    const minted = await mintedToken(user, ['openid'], (await findClient(api.deps.store, rp.id))!);
    expect((await fetch(`${api.url}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${minted}` } })).status).toBe(401);

    const refused = (r: { res: Response; body: Json }) =>
      expect({ status: r.res.status, error: r.body?.error }).toEqual({ status: 401, error: 'invalid_client' });
    refused(
      await postForm(
        api,
        '/api/oauth/token',
        { grant_type: 'authorization_code', code: pending.code, redirect_uri: FLOW_REDIRECT, code_verifier: pending.verifier },
        rp.auth,
      ),
    );
    refused(await postForm(api, '/api/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, rp.auth));
    refused(await postForm(api, '/api/oauth/par', { response_type: 'code', redirect_uri: FLOW_REDIRECT, scope: 'openid' }, rp.auth));
    refused(await postForm(api, '/api/oauth/device_authorization', { scope: 'openid' }, rp.auth));
    refused(
      await postForm(
        api,
        '/api/oauth/token',
        { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: deviceBefore.body.device_code },
        rp.auth,
      ),
    );
    refused(await introspect(tokens.access_token));
    refused(await postForm(api, '/api/oauth/revoke', { token: tokens.refresh_token }, rp.auth));
    expect((await managed()).status).toBe(401);
    // Authorize: an error page, never a redirect to the client.
    const page = await authorize();
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();

    // The owner's app API still shows it, marked inactive.
    const ownerRp = await createClient(api.deps.store, {
      name: 'Owned, deactivated',
      redirectUris: [{ type: 'equals', value: 'https://owned-deactivated.example/cb' }],
      ownerUserId: user._id,
    });
    await call(token, 'PATCH', `${BASE}/${ownerRp.client._id}`, { active: false });
    const pat = (await createPersonalAccessToken(api.deps.store, user._id, { name: 'apps', scope: ['apps:read'], expiresInDays: 1 })).token;
    expect((await call(pat, 'GET', `/api/oauth/me/apps/${ownerRp.client._id}`)).body).toMatchObject({ client_id: ownerRp.client._id, is_active: false });

    // Reactivated: a new code flow works; the old tokens stay revoked.
    const on = await call(token, 'PATCH', `${BASE}/${rp.id}`, { active: true });
    expect(on.body).toMatchObject({ is_active: true, grants_revoked: 0 });
    skipTime(LOOKUP_TTL_MS);
    const again = await runCodeFlow(api, rp, 'openid offline_access', { user: { email, doc: user } });
    expect((await introspect(again.tokens.access_token)).body.active).toBe(true);
    expect((await introspect(tokens.access_token)).body.active).toBe(false);
    expect((await postForm(api, '/api/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, rp.auth)).body.error).toBe(
      'invalid_grant',
    );
  }, 60_000);
});

it('is_verified reaches the apps claim of its owner', async () => {
  const { email, user } = await newUser(api.deps, { prefix: 'apps-claim', password: FLOW_PASSWORD });
  const owned = (
    await createClient(api.deps.store, { name: 'Claimed app', redirectUris: [{ type: 'equals', value: 'https://claimed.example/cb' }], ownerUserId: user._id })
  ).client;
  const rp = await newTestRp(api, { allowedScopes: ['openid', 'apps:read'], oidcFields: ['apps'] });
  const appsClaim = async () => jwtClaims((await runCodeFlow(api, rp, 'openid apps:read', { user: { email, doc: user } })).tokens.id_token).apps as Json[];
  expect(await appsClaim()).toEqual([{ id: owned._id, name: 'Claimed app', client_id: owned._id, is_verified: false }]);
  expect((await call(await adminToken(), 'PATCH', `${BASE}/${owned._id}`, { is_verified: true })).res.status).toBe(200);
  expect(await appsClaim()).toEqual([{ id: owned._id, name: 'Claimed app', client_id: owned._id, is_verified: true }]);
});
