// The users admin API (/api/oauth/me/admin/users) against a real api: search
// and paging, one account, changes, reset of second factors, revocation of
// tokens, deletion, with admin:* and site:* tokens; a non-admin's token is 403
// access_denied, a missing scope 403 insufficient_scope, bad input a JSON 400
// naming the field, an unknown user 404. Disabling cuts the user off (tokens,
// session with back-channel logout, PATs, password sign-in) until enabled.
// The last enabled admin cannot be demoted, disabled or deleted. A verifying
// admin webhook receiver gets admin.user.update and admin.user.delete; the
// audit log names the actor.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { auditRecords } from '../../support/audit.js';
import { createPersonalAccessToken } from '../../../lib/store/personal-access-tokens.js';
import type { UserDoc } from '../../../lib/model/users.js';
import { useTestApi, eventually, type Json } from '../../support/harness.js';
import { FLOW_PASSWORD, FLOW_REDIRECT, newTestRp, runCodeFlow } from '../../support/token-flow.js';
import { expectApiError, postForm, requestJson } from '../../support/http.js';
import { startFlow } from '../../support/consent-flow.js';
import { addHook, startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { mintAccessToken } from '../../support/minted-token.js';
import { testDatabase } from '../../support/database.js';

const BASE = '/api/oauth/me/admin/users';
const ADMIN_SCOPES = ['admin:users:read', 'admin:users:write', 'admin:users:delete'];
const SITE_SCOPES = ['site:user:read', 'site:user:write', 'site:user:delete', 'site:token:revoke'];
let receiver: WebhookReceiver;
let bcl: http.Server;
let bclBase: string;
const logouts: string[] = [];

const api = useTestApi(testDatabase('admin_users').env, { beforeStop: (running) => running.deps.events.idle() });
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  await addHook(api.deps, receiver, '/admin', { name: 'admin user events', events: ['admin.user.update', 'admin.user.delete'] });
  bcl = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      logouts.push(body);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => bcl.listen(0, '127.0.0.1', r));
  bclBase = `http://127.0.0.1:${(bcl.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  await Promise.allSettled([receiver.close(), new Promise((r) => bcl.close(r))]);
});

const mintedToken = (user: UserDoc, scope: string[]) => mintAccessToken(api, user._id, scope);

const admin = async (scope = ADMIN_SCOPES) => {
  const { user } = await newUser(api.deps, { prefix: 'users-admin', password: FLOW_PASSWORD, admin: true });
  return { user, token: await mintedToken(user, scope) };
};

const call = (token: string, method: string, path: string, body?: unknown) => requestJson(`${api.url}${BASE}${path}`, method, { token, body });

describe('users admin API', () => {
  it.each([
    ['admin:*', ADMIN_SCOPES],
    ['site:*', SITE_SCOPES],
  ])('reads, searches, changes, resets and deletes with %s scopes', async (_kind, scopes) => {
    const { token } = await admin(scopes);
    const { user } = await newUser(api.deps, { prefix: 'target', password: FLOW_PASSWORD, name: 'Zed Target' });

    const one = await call(token, 'GET', `/${user._id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({
      id: user._id,
      email: user.email,
      username: user.username,
      name: 'Zed Target',
      role: 'user',
      disabled: false,
      email_verified: true,
      phone_number: null,
      phone_number_verified: false,
      totp_enabled: false,
      passkeys: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(one.text).not.toMatch(/passwordHash|scrypt/);

    // Search by a substring of the email, any case; regex characters are literal.
    const found = await call(token, 'GET', `?q=${encodeURIComponent(user.email.slice(1).toUpperCase())}&limit=5`);
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ limit: 5, offset: 0, total: 1 });
    expect(found.body.users.map((u: Json) => u.id)).toEqual([user._id]);
    expect((await call(token, 'GET', `?q=${encodeURIComponent('.*')}`)).body.total).toBe(0);
    const page = await call(token, 'GET', '?limit=1&offset=1');
    expect(page.body.users).toHaveLength(1);
    expect(page.body.total).toBeGreaterThanOrEqual(2);

    const patched = await call(token, 'PATCH', `/${user._id}`, { name: 'Renamed', email: `NEW-${user.email}`, username: `u${Date.now()}`, role: 'admin' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Renamed', email: `new-${user.email}`, role: 'admin' });
    // Taken email: 409.
    const other = await newUser(api.deps, { prefix: 'other', password: FLOW_PASSWORD });
    expectApiError(await call(token, 'PATCH', `/${user._id}`, { email: other.email }), 409, 'conflict', /email/);
    expectApiError(await call(token, 'PATCH', `/${user._id}`, { username: other.user.username }), 409, 'conflict', /username/);

    await api.deps.store.users.updateOne({ _id: user._id }, { $set: { backupCodes: ['x'] } });
    const reset = await call(token, 'POST', `/${user._id}/reset-2fa`);
    expect(reset.status).toBe(200);
    expect((await api.deps.store.users.findOne({ _id: user._id }))!.backupCodes).toEqual([]);

    const pat = (await createPersonalAccessToken(api.deps.store, user._id, { name: 't', scope: ['apps:read'], expiresInDays: 1 })).token;
    const revoked = await call(token, 'POST', `/${user._id}/revoke-tokens`);
    expect(revoked).toMatchObject({ status: 200, body: { personal_access_tokens_revoked: 1 } });
    expect((await fetch(`${api.url}/api/oauth/me/apps`, { headers: { authorization: `Bearer ${pat}` } })).status).toBe(401);

    expect((await call(token, 'DELETE', `/${user._id}`)).status).toBe(204);
    expectApiError(await call(token, 'GET', `/${user._id}`), 404, 'not_found');
    expectApiError(await call(token, 'DELETE', `/${user._id}`), 404, 'not_found');
  });

  it('refuses a non-admin (404 not_found), a missing scope (insufficient_scope), bad input (400 naming the field) and unknown users (404)', async () => {
    const { user: plain } = await newUser(api.deps, { prefix: 'plain', password: FLOW_PASSWORD });
    const nonAdmin = await mintedToken(plain, ADMIN_SCOPES);
    expectApiError(await call(nonAdmin, 'GET', ''), 404, 'not_found');
    expectApiError(await call(nonAdmin, 'PATCH', `/${plain._id}`, { role: 'admin' }), 404, 'not_found');

    const { token: readOnly } = await admin(['admin:users:read']);
    expectApiError(await call(readOnly, 'PATCH', `/${plain._id}`, { name: 'x' }), 403, 'insufficient_scope');
    expectApiError(await call(readOnly, 'DELETE', `/${plain._id}`), 403, 'insufficient_scope');
    expectApiError(await call(readOnly, 'POST', `/${plain._id}/reset-2fa`), 403, 'insufficient_scope');
    expectApiError(await call(readOnly, 'POST', `/${plain._id}/revoke-tokens`), 403, 'insufficient_scope');
    const { token: writeOnly } = await admin(['admin:users:write']);
    expectApiError(await call(writeOnly, 'GET', ''), 403, 'insufficient_scope');
    expectApiError(await call(writeOnly, 'DELETE', `/${plain._id}`), 403, 'insufficient_scope');

    const { token } = await admin();
    expectApiError(await call(token, 'PATCH', `/${plain._id}`, { role: 'root' }), 400, 'invalid_request', /role/);
    expectApiError(await call(token, 'PATCH', `/${plain._id}`, { disabled: 'yes' }), 400, 'invalid_request', /disabled/);
    expectApiError(await call(token, 'PATCH', `/${plain._id}`, { email: 'not-an-email' }), 400, 'invalid_request', /email/);
    expectApiError(await call(token, 'PATCH', `/${plain._id}`, { username: 'Bad Name' }), 400, 'invalid_request', /username/);
    expectApiError(await call(token, 'PATCH', `/${plain._id}`, { password: 'x' }), 400, 'invalid_request', /password/);
    expectApiError(await call(token, 'PATCH', `/${plain._id}`, '[1]'), 400, 'invalid_request');
    expectApiError(await call(token, 'PATCH', `/${plain._id}`, '{bad json'), 400, 'invalid_request');
    expectApiError(await call(token, 'GET', '?limit=0'), 400, 'invalid_request', /limit/);
    expectApiError(await call(token, 'GET', '?offset=-1'), 400, 'invalid_request', /offset/);
    expectApiError(await call(token, 'GET', `?q=${'a'.repeat(101)}`), 400, 'invalid_request', /q/);
    expectApiError(await call(token, 'GET', '/no-such-user'), 404, 'not_found');
    expectApiError(await call(token, 'PATCH', '/no-such-user', { name: 'x' }), 404, 'not_found');
    expectApiError(await call(token, 'POST', '/no-such-user/reset-2fa'), 404, 'not_found');
    expectApiError(await call(token, 'POST', '/no-such-user/revoke-tokens'), 404, 'not_found');
    expectApiError(await call(token, 'DELETE', '/no-such-user'), 404, 'not_found');
  });

  it('disabling cuts the user off (tokens, session with back-channel logout, PATs, sign-in); enabling lets them sign in again', async () => {
    const rp = await newTestRp(api, { backchannelLogoutUri: `${bclBase}/bcl` });
    const { tokens, user, email, agent } = await runCodeFlow(api, rp, 'openid profile offline_access');
    const pat = (await createPersonalAccessToken(api.deps.store, user._id, { name: 't', scope: ['apps:read'], expiresInDays: 1 })).token;
    const userinfo = () => fetch(`${api.url}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    const apps = () => fetch(`${api.url}/api/oauth/me/apps`, { headers: { authorization: `Bearer ${pat}` } });
    expect((await userinfo()).status).toBe(200);
    expect((await apps()).status).toBe(200);
    expect((await agent.request('/account')).status).toBe(200);

    const { token } = await admin();
    const disabled = await call(token, 'PATCH', `/${user._id}`, { disabled: true });
    expect(disabled).toMatchObject({ status: 200, body: { disabled: true } });
    expect((await userinfo()).status).toBe(401);
    const refreshed = await postForm(api, '/api/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, rp.auth);
    expect([refreshed.res.status, refreshed.body.error]).toEqual([400, 'invalid_grant']);
    expect((await apps()).status).toBe(401);
    expect((await agent.request('/account')).headers.get('location')).toBe('/login');
    await eventually(() => expect(logouts.some((b) => new URLSearchParams(b).has('logout_token'))).toBe(true), 20_000);

    const browser = new HttpUser(api.url);
    const refused = await browser.signIn(await browser.get('/login'), email, FLOW_PASSWORD);
    expect(refused.res.status).toBe(403);
    expect(await refused.res.text()).toContain('This account is disabled.');

    expect((await call(token, 'PATCH', `/${user._id}`, { disabled: false })).body.disabled).toBe(false);
    const again = await browser.signIn(await browser.get('/login'), email, FLOW_PASSWORD);
    expect(new URL(again.url).pathname).toBe('/account');
    // The PAT works again; what was revoked stays revoked.
    expect((await apps()).status).toBe(200);
    expect((await userinfo()).status).toBe(401);
  });

  it('a code issued before the user was disabled is refused at the token endpoint', async () => {
    const rp = await newTestRp(api);
    const u = await newUser(api.deps, { prefix: 'disabled-code', password: FLOW_PASSWORD });
    const flow = await startFlow(api, rp, u, 'openid profile');
    const done = flow.step.url.includes('/consent') ? await flow.agent.submit(await flow.step.res.text(), '/consent', { decision: 'allow' }) : flow.step;
    const { token } = await admin();
    expect((await call(token, 'PATCH', `/${u.id}`, { disabled: true })).status).toBe(200);
    const redeemed = await postForm(
      api,
      '/api/oauth/token',
      { grant_type: 'authorization_code', code: done.external!.searchParams.get('code')!, redirect_uri: FLOW_REDIRECT, code_verifier: flow.verifier },
      rp.auth,
    );
    expect([redeemed.res.status, redeemed.body.error]).toEqual([400, 'invalid_grant']);
  });

  it('keeps the last enabled admin: no demotion, disabling or deletion of them (409)', async () => {
    // Only admins of this test's database: make every other admin a user for the duration.
    const others = await api.deps.store.users.find({ role: 'admin' }).toArray();
    await api.deps.store.users.updateMany({ role: 'admin' }, { $set: { role: 'user' } });
    try {
      const { user, token } = await admin();
      expectApiError(await call(token, 'PATCH', `/${user._id}`, { role: 'user' }), 409, 'conflict', /last enabled administrator/);
      expectApiError(await call(token, 'PATCH', `/${user._id}`, { disabled: true }), 409, 'conflict', /last enabled administrator/);
      expectApiError(await call(token, 'DELETE', `/${user._id}`), 409, 'conflict', /last enabled administrator/);
      const still = await api.deps.store.users.findOne({ _id: user._id });
      expect([still!.role, still!.disabled === true]).toEqual(['admin', false]);
      // A second admin: now the first may step down.
      const second = await admin();
      expect((await call(token, 'PATCH', `/${user._id}`, { role: 'user' })).status).toBe(200);
      expectApiError(await call(second.token, 'DELETE', `/${second.user._id}`), 409, 'conflict');
    } finally {
      await api.deps.store.users.updateMany({ _id: { $in: others.map((o) => o._id) } }, { $set: { role: 'admin' } });
    }
  });

  it('sends admin.user.update and admin.user.delete to a verifying admin webhook; the audit log names the actor', async () => {
    const { user: actor, token } = await admin();
    const { user } = await newUser(api.deps, { prefix: 'hooked', password: FLOW_PASSWORD });
    await call(token, 'PATCH', `/${user._id}`, { name: 'Hooked', disabled: true });
    await call(token, 'DELETE', `/${user._id}`);
    await eventually(() => expect(receiver.at('/admin').filter((d) => d.body.data.user_id === user._id)).toHaveLength(2), 30_000);
    const got = receiver.at('/admin').filter((d) => d.body.data.user_id === user._id);
    for (const d of got) expect(d.verified).toBe(true);
    expect(got.map((d) => [d.body.event, d.body.data]).sort()).toEqual([
      ['admin.user.delete', { user_id: user._id, actor: { type: 'user', user_id: actor._id, client_id: expect.any(String) } }],
      ['admin.user.update', { user_id: user._id, changed: ['name', 'disabled'], actor: { type: 'user', user_id: actor._id, client_id: expect.any(String) } }],
    ]);
    // The audit trail: the profile change, the disabling and the deletion each their own event, the admin (and the token's client) the actor.
    const records = await auditRecords(api.deps.store, { 'subject.userId': user._id });
    expect(records.map((r) => [r.event, r.stream, r.actor, r.data]).sort()).toEqual([
      ['user.deleted', 'admin', { type: 'user', userId: actor._id, clientId: expect.any(String) }, {}],
      ['user.disabled', 'admin', { type: 'user', userId: actor._id, clientId: expect.any(String) }, {}],
      ['user.updated', 'admin', { type: 'user', userId: actor._id, clientId: expect.any(String) }, { changed: ['name'] }],
    ]);
  });
});
