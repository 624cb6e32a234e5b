// `keyflow apps verify|deactivate|reactivate`: the operator's app changes as a
// real process, on a database of their own, with an api on it. Checked: the
// JSON each command prints, the client as stored, a deactivated app refused at
// the token endpoint and its grant revoked, the audit log with the operator as
// actor, `apps list` as `clients list`, and usage errors (exit 2, nothing on
// stdout, no stack trace).
import type { RunningApi } from '../../api/server.js';
import { auditLog } from '../../lib/store/audit-log.js';
import { findClient } from '../../lib/store/clients.js';
import { findGrant } from '../../lib/store/grants.js';
import { runCli, STACK_FRAME, startTestApi, type Json } from '../support/harness.js';
import { jwtClaims, newTestRp, postForm, runCodeFlow } from '../support/token-flow.js';

const DATABASE = `keyflow_test_cli_apps_${Date.now()}`;
const env = { MONGODB_DATABASE: DATABASE };
let api: RunningApi;

beforeAll(async () => {
  api = await startTestApi(env);
}, 60_000);
afterAll(async () => {
  await api.stop();
});

async function ok(...args: string[]): Promise<Json> {
  const r = await runCli(['apps', ...args], env);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

it('verifies, deactivates and reactivates an app, with admin.app.update from the operator', async () => {
  const rp = await newTestRp(api, { allowedScopes: ['openid', 'offline_access'] });
  const { tokens } = await runCodeFlow(api, rp, 'openid offline_access');

  expect(await ok('verify', rp.id)).toMatchObject({ client: { clientId: rp.id, isVerified: true }, changed: ['is_verified'] });
  expect((await findClient(api.deps.store, rp.id))!.isVerified).toBe(true);
  expect(await ok('verify', rp.id, '--unverify')).toMatchObject({ client: { isVerified: false }, changed: ['is_verified'] });

  const off = await ok('deactivate', rp.id);
  expect(off).toMatchObject({ changed: ['active'], grants_revoked: 1 });
  expect(off.client.deactivatedAt).toEqual(expect.any(String));
  expect((await findGrant(api.deps.store, jwtClaims(tokens.access_token).grant_id))!.revokedAt).not.toBeNull();
  expect(await ok('deactivate', rp.id)).toMatchObject({ changed: [], grants_revoked: 0 });
  await new Promise((r) => setTimeout(r, 2_100));
  const refresh = await postForm(api, '/api/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, rp.auth);
  expect({ status: refresh.res.status, error: refresh.body.error }).toEqual({ status: 401, error: 'invalid_client' });

  expect(await ok('reactivate', rp.id)).toMatchObject({ client: { deactivatedAt: null }, changed: ['active'] });
  await new Promise((r) => setTimeout(r, 2_100));
  expect((await runCodeFlow(api, rp, 'openid')).tokens.access_token).toEqual(expect.any(String));

  const records = await auditLog(api.deps.store).find({ name: 'admin.app.update' }).sort({ createdAt: 1 }).toArray();
  expect(records.map((r) => r.data.changed)).toEqual([['is_verified'], ['is_verified'], ['active'], ['active']]);
  for (const r of records) expect(r).toMatchObject({ scope: 'admin', actor: { type: 'operator' }, data: { app_id: rp.id } });

  // `apps list` is `clients list`.
  expect((await ok('list')).map((c: Json) => c.clientId)).toContain(rp.id);
}, 60_000);

it.each([
  [['verify'], /apps verify needs CLIENT_ID/],
  [['deactivate', 'no-such-app'], /no app with client_id no-such-app/],
  [['reactivate', 'a', 'b'], /unexpected argument: b/],
  [['deactivate', 'x', '--unverify'], /unverify/],
  [['frobnicate'], /unknown command: clients frobnicate/],
])('refuses %j with exit 2', async (args, message) => {
  const r = await runCli(['apps', ...args], env);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(STACK_FRAME);
});
