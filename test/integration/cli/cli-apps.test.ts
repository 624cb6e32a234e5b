// `keyflow apps verify|deactivate|reactivate` and `clients show|update|
// rotate-secret|delete`: the operator's app commands as a real process, on a
// database of their own, with an api on it. Checked: the JSON each command
// prints (the admin API's answer for the same app), the client as stored, a
// deactivated app refused at the token endpoint and its grant revoked, the
// audit log with the operator as actor, `apps list` as `clients list`; what an
// operator and the app observe after an update (the old redirect URI refused),
// a new secret (the old one refused) and a deletion (the app refused, its
// tokens dead, its refresh family ended, its consents gone, nothing without
// --yes or without Temporal); the owner's webhooks told; and usage errors
// (exit 2, nothing on stdout, no stack trace).
import { auditRecords } from '../../support/audit.js';
import { findClient } from '../../../lib/store/clients.js';
import { findGrant } from '../../../lib/store/grants.js';
import { createWebhook } from '../../../lib/store/webhooks.js';
import { useTestApi, eventually, type Json } from '../../support/harness.js';
import { skipTime } from '../../support/clock.js';
import { cliOn, expectRefused, runCli } from '../../support/cli.js';
import { testDatabase } from '../../support/database.js';
import { jwtClaims, postForm } from '../../support/http.js';
import { mintAccessToken } from '../../support/minted-token.js';
import { expectFamilyRevoked, FLOW_PASSWORD, FLOW_REDIRECT, newTestRp, runCodeFlow } from '../../support/token-flow.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';
import { basicAuth, newRp } from '../../../tools/fixtures/clients.js';
import { newUser } from '../../../tools/fixtures/users.js';

const database = testDatabase('cli_apps');
/** The api's client lookups are cached this long (cachedClientLookup), plus a margin: a change reaches them once it has passed. */
const CLIENT_CACHE_MS = 2_100;
const env = database.env;
let receiver: WebhookReceiver;

const api = useTestApi(env);
beforeAll(async () => {
  receiver = await startWebhookReceiver();
}, 60_000);
afterAll(async () => {
  await receiver.close();
});

let adminToken: string | undefined;
/** The admin API's answer for an app (GET, or a PATCH with `body`). */
async function adminApi(clientId: string, method = 'GET', body?: unknown): Promise<Json> {
  if (!adminToken) {
    const { user: admin } = await newUser(api.deps, { prefix: 'cli-apps-admin', password: FLOW_PASSWORD, admin: true });
    adminToken = await mintAccessToken(api, admin._id, ['admin:config:read', 'admin:config:write']);
  }
  const headers = { authorization: `Bearer ${adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) };
  const res = await fetch(`${api.url}/api/oauth/me/admin/apps/${clientId}`, { method, headers, body: body ? JSON.stringify(body) : undefined });
  expect(res.status).toBe(200);
  return res.json();
}

const { run: cli, ok } = cliOn(env, 'apps');

it('verifies, deactivates and reactivates an app, with admin.app.update from the operator', async () => {
  const rp = await newTestRp(api, { allowedScopes: ['openid', 'offline_access'] });
  const { tokens } = await runCodeFlow(api, rp, 'openid offline_access');
  // Each change prints what the admin API answers for it: the app as GET shows it, and grants_revoked.
  const answered = async (grantsRevoked: number) => ({ ...(await adminApi(rp.id)), grants_revoked: grantsRevoked });

  const verified = await ok('verify', rp.id);
  expect(verified).toEqual(await answered(0));
  expect(verified).toMatchObject({ client_id: rp.id, is_verified: true, owner_user_id: null });
  // The API's answer to the same change (made again: nothing changes) has the same fields.
  expect(Object.keys(verified).sort()).toEqual(Object.keys(await adminApi(rp.id, 'PATCH', { is_verified: true })).sort());
  expect((await findClient(api.deps.store, rp.id))!.isVerified).toBe(true);
  expect(await ok('verify', rp.id, '--unverify')).toMatchObject({ is_verified: false, grants_revoked: 0 });

  const off = await ok('deactivate', rp.id);
  expect(off).toEqual(await answered(1));
  expect(off).toMatchObject({ is_active: false, grants_revoked: 1 });
  expect((await findGrant(api.deps.store, jwtClaims(tokens.access_token).grant_id))!.revokedAt).not.toBeNull();
  expect(await ok('deactivate', rp.id)).toMatchObject({ is_active: false, grants_revoked: 0 });
  skipTime(CLIENT_CACHE_MS);
  const refresh = await postForm(api, '/api/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, rp.auth);
  expect({ status: refresh.res.status, error: refresh.body.error }).toEqual({ status: 401, error: 'invalid_client' });

  const on = await ok('reactivate', rp.id);
  expect(on).toEqual(await answered(0));
  expect(on).toMatchObject({ is_active: true });
  skipTime(CLIENT_CACHE_MS);
  expect((await runCodeFlow(api, rp, 'openid')).tokens.access_token).toEqual(expect.any(String));

  // The audit trail: verification a client.updated; deactivation and reactivation their own events (a second deactivation changed nothing).
  const records = await auditRecords(api.deps.store, { 'subject.clientId': rp.id, event: /^client\./ });
  expect(records.map((r) => [r.event, r.data])).toEqual([
    ['client.updated', { client_id: rp.id, changed: ['is_verified'] }],
    ['client.updated', { client_id: rp.id, changed: ['is_verified'] }],
    ['client.deactivated', { client_id: rp.id, grants_revoked: 1 }],
    ['client.reactivated', { client_id: rp.id }],
  ]);
  for (const r of records) expect(r).toMatchObject({ stream: 'admin', actor: { type: 'operator' }, subject: { clientId: rp.id } });

  // `apps list` is `clients list`.
  expect((await ok('list')).find((c: Json) => c.client_id === rp.id)).toEqual(await adminApi(rp.id));
}, 60_000);

it.each([
  [['verify'], /^keyflow: CLIENT_ID is required \(see keyflow apps verify --help\)\n$/],
  [['reactivate', 'a', 'b'], /unexpected argument: b/],
  [['deactivate', 'x', '--unverify'], /^keyflow: unknown option --unverify \(see keyflow apps deactivate --help\)\n$/],
  [['frobnicate'], /unknown command: apps frobnicate \(see keyflow apps --help\)/],
])('refuses %j with exit 2', async (args, message) => {
  expectRefused(await cli(...args), 2, message);
});

it('names an unknown app in one line, exit 1 (not found)', async () => {
  expectRefused(await cli('deactivate', 'no-such-app'), 1, /^keyflow: error: no app with client_id no-such-app\n$/);
});

/** `clients …` that succeeds: nothing on stderr, exit 0, JSON on stdout. */
const { ok: clients } = cliOn(env, 'clients');

/** A user whose webhook listens for app.updated and app.deleted on its own receiver path. */
async function ownerWithWebhook() {
  const { user } = await newUser(api.deps, { prefix: 'cli-apps-owner', password: FLOW_PASSWORD });
  const path = `/owner-${user._id}`;
  const { secret } = await createWebhook(api.deps.store, api.deps.kek, {
    scope: 'user',
    ownerUserId: user._id,
    name: 'app events',
    url: `${receiver.url}${path}`,
    events: ['app.updated', 'app.deleted'],
  });
  receiver.secrets.set(path, secret);
  return { user, path };
}

/** The events the owner's webhook received once there are `count`, each signed. */
async function told(path: string, count: number): Promise<Json[]> {
  await eventually(() => expect(receiver.at(path).length).toBeGreaterThanOrEqual(count), 30_000);
  return receiver.at(path).map((d) => {
    expect(d.verified).toBe(true);
    return d.body;
  });
}

/** The authorization endpoint's answer to a code request with this redirect URI (no session: a redirect to sign in, or the error page). */
const authorize = (clientId: string, redirectUri: string) =>
  fetch(
    `${api.url}/api/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, scope: 'openid', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' })}`,
    { redirect: 'manual' },
  );

/** A refresh with the client's Basic credentials: status and error. */
async function refresh(refreshToken: string, auth: { authorization: string }) {
  const { res, body } = await postForm(api, '/api/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken }, auth);
  return { status: res.status, error: body.error as string | undefined };
}

const basic = (clientId: string, secret: string) => ({ authorization: basicAuth(clientId, secret) });

describe('clients show', () => {
  it('prints one app as the admin API shows it; an unknown one is exit 1', async () => {
    const rp = await newTestRp(api);
    expect(await clients('show', rp.id)).toEqual(await adminApi(rp.id));
    const r = await runCli(['clients', 'show', 'no-such-app'], env);
    expect([r.code, r.stdout, r.stderr]).toEqual([1, '', 'keyflow: error: no app with client_id no-such-app\n']);
  });
});

describe('clients update', () => {
  it('changes what it names as the app API does, refuses the old redirect URI from then on, and tells the owner', async () => {
    const owner = await ownerWithWebhook();
    const rp = await newTestRp(api, { ownerUserId: owner.user._id });
    const before = await adminApi(rp.id);
    const updated = await clients(
      'update',
      rp.id,
      '--name',
      'Renamed',
      '--redirect-uri',
      'https://renamed.example/cb',
      '--redirect-uri-wildcard',
      'https://*.renamed.example/cb',
    );
    expect(updated).toEqual(await adminApi(rp.id));
    expect(updated).toEqual({
      ...before,
      name: 'Renamed',
      redirect_uris: [
        { type: 'equals', value: 'https://renamed.example/cb' },
        { type: 'wildcard', value: 'https://*.renamed.example/cb' },
      ],
      updated_at: expect.any(String),
    });
    // The app's own client lookup is cached for a moment.
    skipTime(CLIENT_CACHE_MS);
    expect((await authorize(rp.id, FLOW_REDIRECT)).status).toBe(400);
    expect((await authorize(rp.id, 'https://renamed.example/cb')).status).toBe(303);
    expect((await told(owner.path, 1))[0]).toEqual({
      event: 'app.updated',
      timestamp: expect.any(Number),
      data: { app_id: rp.id, name: 'Renamed', changed: ['name', 'redirect_uris'] },
    });
  });

  it.each([
    [[], /clients update needs at least one of --name, --description, --redirect-uri/],
    [['--redirect-uri', 'not a uri'], /^keyflow: --redirect-uri: .* \(see keyflow clients update --help\)\n$/],
    [['--public'], /unknown option --public/],
  ])('refuses %j with exit 2 and changes nothing', async (args, message) => {
    const rp = await newTestRp(api);
    const before = await adminApi(rp.id);
    const r = await runCli(['clients', 'update', rp.id, ...args], env);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(message);
    expect(await adminApi(rp.id)).toEqual(before);
  });
});

describe('clients rotate-secret', () => {
  it('prints a new secret once: the old one is refused from then on, the new one works, and the owner is told', async () => {
    const owner = await ownerWithWebhook();
    const rp = await newTestRp(api, { ownerUserId: owner.user._id, allowedScopes: ['openid', 'offline_access'] });
    const { tokens } = await runCodeFlow(api, rp, 'openid offline_access');
    const rotated = await clients('rotate-secret', rp.id);
    expect(rotated).toEqual({ client_id: rp.id, client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    skipTime(CLIENT_CACHE_MS);
    expect(await refresh(tokens.refresh_token, rp.auth)).toEqual({ status: 401, error: 'invalid_client' });
    expect(await refresh(tokens.refresh_token, basic(rp.id, rotated.client_secret))).toEqual({ status: 200, error: undefined });
    expect((await told(owner.path, 1))[0]).toMatchObject({ event: 'app.updated', data: { app_id: rp.id, changed: ['client_secret'] } });
  });

  it('refuses an app without a client secret with exit 1', async () => {
    const rp = await newRp(api.deps, {
      name: 'Public',
      redirectUris: [{ type: 'equals', value: FLOW_REDIRECT }],
      public: true,
      tokenEndpointAuthMethod: 'none',
    });
    const r = await runCli(['clients', 'rotate-secret', rp.id], env);
    expect([r.code, r.stdout, r.stderr]).toEqual([1, '', `keyflow: error: app ${rp.id} does not use a client secret (token_endpoint_auth_method none)\n`]);
  });
});

describe('clients delete', () => {
  it('deletes nothing without --yes, and says what it would do', async () => {
    const rp = await newTestRp(api, { allowedScopes: ['openid', 'offline_access'] });
    const { tokens } = await runCodeFlow(api, rp, 'openid offline_access');
    const r = await runCli(['clients', 'delete', rp.id], env);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toBe(
      `keyflow: not deleting the app "Token flow RP" (${rp.id}) without --yes: deleting it revokes its 1 grant(s), whose access and refresh tokens stop working at once. Nothing was changed. (see keyflow clients delete --help)\n`,
    );
    expect(await findClient(api.deps.store, rp.id)).not.toBeNull();
    expect((await refresh(tokens.refresh_token, rp.auth)).status).toBe(200);
  });

  it('deletes the app and revokes what it held, as the app API does: its tokens stop working, its refresh family ends, the owner is told', async () => {
    const owner = await ownerWithWebhook();
    const rp = await newTestRp(api, { ownerUserId: owner.user._id, allowedScopes: ['openid', 'offline_access'] });
    const { tokens } = await runCodeFlow(api, rp, 'openid offline_access');
    const userinfo = () => fetch(`${api.url}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect((await userinfo()).status).toBe(200);

    expect(await clients('delete', rp.id, '--yes')).toEqual({ deleted: rp.id, name: 'Token flow RP', grants_revoked: 1 });
    expect(await findClient(api.deps.store, rp.id)).toBeNull();
    expect((await findGrant(api.deps.store, jwtClaims(tokens.access_token).grant_id))!.revokedAt).not.toBeNull();
    expect(await api.deps.store.consents.findOne({ clientId: rp.id })).toBeNull();
    expect((await userinfo()).status).toBe(401);
    await expectFamilyRevoked(api, tokens.access_token);
    skipTime(CLIENT_CACHE_MS);
    expect(await refresh(tokens.refresh_token, rp.auth)).toEqual({ status: 401, error: 'invalid_client' });
    const page = await authorize(rp.id, FLOW_REDIRECT);
    expect([page.status, await page.text()]).toEqual([400, expect.stringContaining('Unknown application')]);
    expect((await told(owner.path, 1))[0]).toEqual({ event: 'app.deleted', timestamp: expect.any(Number), data: { app_id: rp.id, name: 'Token flow RP' } });
    // Gone: a second delete names it unknown.
    const again = await runCli(['clients', 'delete', rp.id, '--yes'], env);
    expect([again.code, again.stderr]).toEqual([1, `keyflow: error: no app with client_id ${rp.id}\n`]);
  });

  it('deletes nothing when Temporal does not answer (exit 1): the refresh families could not be ended', async () => {
    const rp = await newTestRp(api);
    const r = await runCli(['clients', 'delete', rp.id, '--yes'], { ...env, TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toMatch(/^keyflow: error: cannot reach Temporal at 127\.0\.0\.1:1; is Keyflow running/);
    expect(await findClient(api.deps.store, rp.id)).not.toBeNull();
  });
});
