// `keyflow apps verify|deactivate|reactivate`: the operator's app changes as a
// real process, on a database of their own, with an api on it. Checked: the
// JSON each command prints (the admin API's answer for the same app), the client as stored, a deactivated app refused at
// the token endpoint and its grant revoked, the audit log with the operator as
// actor, `apps list` as `clients list`, and usage errors (exit 2, nothing on
// stdout, no stack trace).
import type { RunningApi } from '../../../api/server.js';
import { auditLog } from '../../../lib/store/audit-log.js';
import { findClient } from '../../../lib/store/clients.js';
import { findGrant } from '../../../lib/store/grants.js';
import { startTestApi, type Json } from '../../support/harness.js';
import { skipTime } from '../../support/clock.js';
import { cliOn, expectRefused } from '../../support/cli.js';
import { testDatabase } from '../../support/database.js';
import { mintAccessToken } from '../../support/minted-token.js';
import { FLOW_PASSWORD, newTestRp, runCodeFlow } from '../../support/token-flow.js';
import { jwtClaims, postForm } from '../../support/http.js';
import { newUser } from '../../../tools/fixtures/users.js';

const database = testDatabase('cli_apps');
let api: RunningApi;

beforeAll(async () => {
  api = await startTestApi(database.env);
}, 60_000);
afterAll(async () => {
  await api.stop();
});

const { run: cli, ok } = cliOn(database.env, 'apps');

it('verifies, deactivates and reactivates an app, with admin.app.update from the operator', async () => {
  const rp = await newTestRp(api, { allowedScopes: ['openid', 'offline_access'] });
  const { tokens } = await runCodeFlow(api, rp, 'openid offline_access');
  // Each change prints what the admin API answers for it: the app as GET shows it, and grants_revoked.
  const { user: admin } = await newUser(api.deps, { prefix: 'cli-apps-admin', password: FLOW_PASSWORD, admin: true });
  const token = await mintAccessToken(api, admin._id, ['admin:config:read', 'admin:config:write']);
  const adminApi = async (method: string, body?: unknown): Promise<Json> => {
    const headers = { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) };
    const res = await fetch(`${api.url}/api/oauth/me/admin/apps/${rp.id}`, { method, headers, body: body ? JSON.stringify(body) : undefined });
    expect(res.status).toBe(200);
    return res.json();
  };
  const answered = async (grantsRevoked: number) => ({ ...(await adminApi('GET')), grants_revoked: grantsRevoked });

  const verified = await ok('verify', rp.id);
  expect(verified).toEqual(await answered(0));
  expect(verified).toMatchObject({ client_id: rp.id, is_verified: true, owner_user_id: null });
  // The API's answer to the same change (made again: nothing changes) has the same fields.
  expect(Object.keys(verified).sort()).toEqual(Object.keys(await adminApi('PATCH', { is_verified: true })).sort());
  expect((await findClient(api.deps.store, rp.id))!.isVerified).toBe(true);
  expect(await ok('verify', rp.id, '--unverify')).toMatchObject({ is_verified: false, grants_revoked: 0 });

  const off = await ok('deactivate', rp.id);
  expect(off).toEqual(await answered(1));
  expect(off).toMatchObject({ is_active: false, grants_revoked: 1 });
  expect((await findGrant(api.deps.store, jwtClaims(tokens.access_token).grant_id))!.revokedAt).not.toBeNull();
  expect(await ok('deactivate', rp.id)).toMatchObject({ is_active: false, grants_revoked: 0 });
  skipTime(2_100);
  const refresh = await postForm(api, '/api/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, rp.auth);
  expect({ status: refresh.res.status, error: refresh.body.error }).toEqual({ status: 401, error: 'invalid_client' });

  const on = await ok('reactivate', rp.id);
  expect(on).toEqual(await answered(0));
  expect(on).toMatchObject({ is_active: true });
  skipTime(2_100);
  expect((await runCodeFlow(api, rp, 'openid')).tokens.access_token).toEqual(expect.any(String));

  const records = await auditLog(api.deps.store).find({ name: 'admin.app.update' }).sort({ createdAt: 1 }).toArray();
  expect(records.map((r) => r.data.changed)).toEqual([['is_verified'], ['is_verified'], ['active'], ['active']]);
  for (const r of records) expect(r).toMatchObject({ scope: 'admin', actor: { type: 'operator' }, data: { app_id: rp.id } });

  // `apps list` is `clients list`.
  expect((await ok('list')).find((c: Json) => c.client_id === rp.id)).toEqual(await adminApi('GET'));
}, 60_000);

it.each([
  [['verify'], /apps verify needs CLIENT_ID/],
  [['deactivate', 'no-such-app'], /no app with client_id no-such-app/],
  [['reactivate', 'a', 'b'], /unexpected argument: b/],
  [['deactivate', 'x', '--unverify'], /unverify/],
  [['frobnicate'], /unknown command: clients frobnicate/],
])('refuses %j with exit 2', async (args, message) => {
  expectRefused(await cli(...args), 2, message);
});
