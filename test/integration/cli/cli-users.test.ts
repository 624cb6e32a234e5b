// `keyflow users update|disable|enable|reset-2fa` and `keyflow tokens revoke|create`
// as real processes, on a database of their own with an api on it: what each
// prints, what the user then observes (tokens refused, signed out, sign-in
// refused and allowed again), the audit log with the operator as actor, the
// last enabled admin kept (exit 1), and refusals: an unknown user or bad
// input exits 2, a taken email exits 1; never a stack trace.
import { auditRecords } from '../../support/audit.js';
import { createPersonalAccessToken } from '../../../lib/store/personal-access-tokens.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { cliOn, expectRefused, jsonLines } from '../../support/cli.js';
import { testDatabase } from '../../support/database.js';
import { FLOW_PASSWORD, newTestRp, runCodeFlow } from '../../support/token-flow.js';
import { postForm } from '../../support/http.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newUser, uniqueEmail } from '../../../tools/fixtures/users.js';
import { addTestPasskey } from '../../support/passkeys.js';
import { mintAccessToken } from '../../support/minted-token.js';

const database = testDatabase('cli_users');

const api = useTestApi(database.env);

const { run: cli, ok, withInput } = cliOn(database.env);

/** The account events of the audit trail about one user, oldest first (one change's several events, e.g. a profile field and the role, sorted by name). */
const operatorEvents = async (userId: string) =>
  (await auditRecords(api.deps.store, { 'subject.userId': userId, event: /^user\./ })).map((r) => [r.event, r.actor.type, r.data.changed]);

describe('keyflow users', () => {
  it('prints each user as the admin API shows them (the same fields and values), and tokens revoke as the API answers', async () => {
    const { user: admin } = await newUser(api.deps, { prefix: 'cli-shape-admin', password: FLOW_PASSWORD, admin: true });
    const token = await mintAccessToken(api, admin._id, ['admin:users:read', 'admin:users:write']);
    const adminApi = async (method: string, path: string): Promise<Json> => {
      const res = await fetch(`${api.url}/api/oauth/me/admin/users${path}`, { method, headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      return res.json();
    };
    const email = uniqueEmail('cli-shape');
    const created = await ok('users', 'create', '--email', email, '--password', FLOW_PASSWORD, '--name', 'Same Shape');
    const one = `/${created.id}`;
    expect(created).toEqual(await adminApi('GET', one));
    expect((await auditRecords(api.deps.store, { event: 'user.created', 'subject.userId': created.id })).map((r) => [r.actor, r.data])).toEqual([
      [{ type: 'operator' }, { admin: false, via: 'cli' }],
    ]);
    const admin2 = await ok('users', 'create', '--email', uniqueEmail('cli-shape-admin2'), '--password', FLOW_PASSWORD, '--admin');
    expect((await auditRecords(api.deps.store, { event: 'user.created', 'subject.userId': admin2.id }))[0]?.data).toEqual({ admin: true, via: 'cli' });
    await addTestPasskey(api.deps.store, created.id);
    expect(await ok('users', 'update', email, '--name', 'Same Shape Again')).toEqual(await adminApi('GET', one));
    const listed = (await ok('users', 'list')).find((u: Json) => u.id === created.id);
    expect(listed).toEqual((await adminApi('GET', `?q=${encodeURIComponent(email)}`)).users[0]);
    expect(listed).toMatchObject({ email_verified: true, totp_enabled: false, passkeys: 1 });
    expect(await ok('users', 'disable', email)).toEqual(await adminApi('GET', one));
    expect(await ok('users', 'enable', email)).toEqual(await adminApi('GET', one));
    const reset = await ok('users', 'reset-2fa', email);
    expect(reset).toEqual(await adminApi('GET', one));
    expect(reset).toMatchObject({ totp_enabled: false, passkeys: 0 });
    expect(Object.keys(reset)).toEqual(Object.keys(await adminApi('POST', `${one}/reset-2fa`)));
    // The CLI names the user (given by email); the rest is the API's answer.
    expect(await ok('tokens', 'revoke', '--user', email)).toEqual({ user_id: created.id, ...(await adminApi('POST', `${one}/revoke-tokens`)) });
  });

  it('create takes the password from stdin (--password-stdin) and the user signs in with it; exactly one way is given (2)', async () => {
    const email = uniqueEmail('cli-stdin');
    const piped = 'a passphrase from a pipe 4e1c';
    const r = await withInput(`${piped}\n`, 'users', 'create', '--email', email, '--password-stdin');
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).not.toContain(piped);
    const agent = new HttpUser(api.url);
    expect(new URL((await agent.signIn(await agent.get('/login'), email, piped)).url).pathname).toBe('/account');
    const hint = /give the password with one of --password and --password-stdin/;
    expectRefused(await withInput(piped, 'users', 'create', '--email', uniqueEmail('cli-both'), '--password', piped, '--password-stdin'), 2, hint);
    expectRefused(await cli('users', 'create', '--email', uniqueEmail('cli-neither')), 2, hint);
  });

  it('show prints one user, found by id, email or username, as the admin API does; an unknown one is not found (1)', async () => {
    const { user } = await newUser(api.deps, { prefix: 'cli-show', password: FLOW_PASSWORD });
    const byId = await ok('users', 'show', user._id);
    expect(byId).toMatchObject({ id: user._id, email: user.email, username: user.username });
    expect(await ok('users', 'show', user.email)).toEqual(byId);
    expect(await ok('users', 'show', user.username)).toEqual(byId);
    expectRefused(await cli('users', 'show', 'nobody@example.com'), 1, /^keyflow: error: no user with id, email or username nobody@example.com\n$/);
  });

  it('audit list names who made a change as admin webhooks do (user_id, client_id)', async () => {
    const { user: admin } = await newUser(api.deps, { prefix: 'cli-audit-admin', password: FLOW_PASSWORD, admin: true });
    const { user } = await newUser(api.deps, { prefix: 'cli-audit-target', password: FLOW_PASSWORD });
    const token = await mintAccessToken(api, admin._id, ['admin:users:write']);
    const res = await fetch(`${api.url}/api/oauth/me/admin/users/${user._id}/revoke-tokens`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const listed = await cli('audit', 'list', '--event', 'user.updated', '--user', user._id);
    expect([listed.code, listed.stderr]).toEqual([0, '']);
    const [record] = jsonLines(listed.stdout);
    expect(record).toMatchObject({
      event: 'user.updated',
      outcome: 'success',
      actor: { type: 'user', user_id: admin._id, client_id: expect.any(String) },
      subject: { user_id: user._id },
      data: { changed: ['tokens_revoked'], grants_revoked: 0, personal_access_tokens_revoked: 0 },
    });
  });

  it('update changes name, email, username and role; refuses bad input (2), unknown users (2) and a taken email (1)', async () => {
    const { user } = await newUser(api.deps, { prefix: 'cli-upd', password: FLOW_PASSWORD });
    const other = await newUser(api.deps, { prefix: 'cli-other', password: FLOW_PASSWORD });
    const username = `cli${Date.now().toString(36)}`;
    const out = await ok('users', 'update', user.email, '--name', 'New Name', '--email', `X-${user.email}`, '--username', username, '--role', 'admin');
    expect(out).toMatchObject({ id: user._id, name: 'New Name', email: `x-${user.email}`, username, role: 'admin' });
    expect(out).not.toHaveProperty('passwordHash');
    expect((await operatorEvents(user._id)).sort()).toEqual([
      ['user.role.changed', 'operator', undefined],
      ['user.updated', 'operator', ['name', 'email', 'username']],
    ]);
    expect((await auditRecords(api.deps.store, { event: 'user.role.changed', 'subject.userId': user._id }))[0]?.data).toEqual({ admin: true });

    expectRefused(await cli('users', 'update', user._id, '--role', 'root'), 2, /^keyflow: --role: .* \(see keyflow users update --help\)\n$/);
    expectRefused(await cli('users', 'update', user._id), 2, /needs at least one of/);
    expectRefused(await cli('users', 'update', 'nobody@example.com', '--name', 'x'), 1, /no user with id, email or username nobody@example.com/);
    expectRefused(await cli('users', 'update', user._id, '--email', other.email), 1, /already exists/);
    expectRefused(await cli('users', 'disable'), 2, /^keyflow: USER is required \(see keyflow users disable --help\)\n$/);
    expectRefused(await cli('tokens', 'revoke'), 2, /--user is required/);
  });

  it('update marks a phone number verified, or not; refuses it without a number (2) and a value not true or false (2)', async () => {
    const { user } = await newUser(api.deps, { prefix: 'cli-phone', password: FLOW_PASSWORD });
    expectRefused(await cli('users', 'update', user._id, '--phone-number-verified', 'true'), 2, /--phone-number-verified: the user has no phone number/);
    await api.deps.store.users.updateOne({ _id: user._id }, { $set: { phoneNumber: '+15550100' } });
    expectRefused(await cli('users', 'update', user._id, '--phone-number-verified', 'yes'), 2, /--phone-number-verified must be true or false/);
    expect(await ok('users', 'update', user._id, '--phone-number-verified', 'true')).toMatchObject({ phone_number: '+15550100', phone_number_verified: true });
    expect(await ok('users', 'update', user._id, '--phone-number-verified', 'false')).toMatchObject({ phone_number_verified: false });
    expect(await operatorEvents(user._id)).toEqual([
      ['user.updated', 'operator', ['phone_number_verified']],
      ['user.updated', 'operator', ['phone_number_verified']],
    ]);
  });

  it('disable signs the user out and revokes their tokens; enable lets them sign in again', async () => {
    const rp = await newTestRp(api);
    const { tokens, user, email, agent } = await runCodeFlow(api, rp, 'openid offline_access');
    const pat = (await createPersonalAccessToken(api.deps.store, user._id, { name: 't', scope: ['apps:read'], expiresInDays: 1 })).token;
    const apps = () => fetch(`${api.url}/api/oauth/me/apps`, { headers: { authorization: `Bearer ${pat}` } });
    expect((await apps()).status).toBe(200);

    expect(await ok('users', 'disable', email)).toMatchObject({ id: user._id, disabled: true });
    expect((await fetch(`${api.url}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(401);
    const refreshed = await postForm(api, '/api/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, rp.auth);
    expect(refreshed.body.error).toBe('invalid_grant');
    expect((await agent.request('/account')).headers.get('location')).toBe('/login');
    expect((await apps()).status).toBe(401);
    const browser = new HttpUser(api.url);
    expect((await browser.signIn(await browser.get('/login'), email, FLOW_PASSWORD)).res.status).toBe(403);

    expect(await ok('users', 'enable', user._id)).toMatchObject({ disabled: false });
    expect(new URL((await browser.signIn(await browser.get('/login'), email, FLOW_PASSWORD)).url).pathname).toBe('/account');
    expect((await apps()).status).toBe(200);
    expect(await operatorEvents(user._id)).toEqual([
      ['user.disabled', 'operator', undefined],
      ['user.enabled', 'operator', undefined],
    ]);
  });

  it('reset-2fa removes TOTP, backup codes and passkeys', async () => {
    const { user, email } = await newUser(api.deps, { prefix: 'cli-2fa', password: FLOW_PASSWORD, totpSecret: 'JBSWY3DPEHPK3PXP' });
    await addTestPasskey(api.deps.store, user._id);
    expect(await ok('users', 'reset-2fa', email)).toMatchObject({ totp_enabled: false, passkeys: 0 });
    expect(await api.deps.store.passkeys.findOne({ userId: user._id })).toBeNull();
    expect(await operatorEvents(user._id)).toEqual([['user.updated', 'operator', ['second_factors']]]);
  });

  it('tokens revoke ends every grant and personal access token of the user', async () => {
    const rp = await newTestRp(api);
    const { tokens, user } = await runCodeFlow(api, rp, 'openid offline_access');
    const pat = (await createPersonalAccessToken(api.deps.store, user._id, { name: 't', scope: ['apps:read'], expiresInDays: 1 })).token;
    expect(await ok('tokens', 'revoke', '--user', user._id)).toEqual({ user_id: user._id, grants_revoked: 1, personal_access_tokens_revoked: 1 });
    const refreshed = await postForm(api, '/api/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, rp.auth);
    expect(refreshed.body.error).toBe('invalid_grant');
    expect((await fetch(`${api.url}/api/oauth/me/apps`, { headers: { authorization: `Bearer ${pat}` } })).status).toBe(401);
    expect(await operatorEvents(user._id)).toEqual([['user.updated', 'operator', ['tokens_revoked']]]);
  });

  it('tokens create makes a personal access token of the user, shown once, within what the user could make', async () => {
    const { user } = await newUser(api.deps, { prefix: 'cli-pat', password: FLOW_PASSWORD });
    const made = await ok('tokens', 'create', '--user', user.email, '--name', 'registration', '--scope', 'apps:write apps:read', '--expires-in-days', '2');
    expect(made).toEqual({
      id: expect.any(String),
      user_id: user._id,
      name: 'registration',
      scope: ['apps:write', 'apps:read'],
      expires_at: expect.any(String),
      token: expect.stringMatching(/^kfpat_/),
    });
    expect(Date.parse(made.expires_at) - Date.now()).toBeGreaterThan(47 * 3600_000);
    // It works as the user's own token: dynamic registration with it as the initial access token.
    const registered = await fetch(`${api.url}/api/oauth/register`, {
      method: 'POST',
      headers: { authorization: `Bearer ${made.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Registered', redirect_uris: ['https://registered.example/cb'] }),
    });
    expect(registered.status).toBe(201);
    // The token is stored only as its hash.
    expect(JSON.stringify(await api.deps.store.personalAccessTokens.find({ userId: user._id }).toArray())).not.toContain(made.token);
    // Beyond the user's own reach (an admin scope, a site scope, offline_access), past the lifetime cap, or malformed: exit 2.
    expectRefused(
      await cli('tokens', 'create', '--user', user.email, '--name', 'x', '--scope', 'admin:users:read', '--expires-in-days', '1'),
      2,
      /not available: admin:users:read/,
    );
    expectRefused(
      await cli('tokens', 'create', '--user', user.email, '--name', 'x', '--scope', 'site:user:read', '--expires-in-days', '1'),
      2,
      /not available/,
    );
    expectRefused(
      await cli('tokens', 'create', '--user', user.email, '--name', 'x', '--scope', 'apps:read', '--expires-in-days', '99999'),
      2,
      /at most 365 days/,
    );
    expectRefused(
      await cli('tokens', 'create', '--user', user.email, '--name', 'x', '--scope', 'apps:read', '--expires-in-days', 'soon'),
      2,
      /^keyflow: --expires-in-days: /,
    );
    expectRefused(await cli('tokens', 'create', '--user', user.email, '--scope', 'apps:read', '--expires-in-days', '1'), 2, /--name is required/);
    expectRefused(await cli('tokens', 'create', '--user', 'nobody@example.com', '--name', 'x', '--scope', 'apps:read', '--expires-in-days', '1'), 1, /no user/);
  });

  it('keeps the last enabled admin: demote, disable and delete exit 1', async () => {
    // This database's other admins step aside for the test.
    const others = await api.deps.store.users.find({ role: 'admin' }).toArray();
    await api.deps.store.users.updateMany({ role: 'admin' }, { $set: { role: 'user' } });
    try {
      const { user } = await newUser(api.deps, { prefix: 'cli-last', password: FLOW_PASSWORD, admin: true });
      expectRefused(await cli('users', 'update', user._id, '--role', 'user'), 1, /last enabled administrator/);
      expectRefused(await cli('users', 'disable', user._id), 1, /last enabled administrator/);
      expectRefused(await cli('users', 'delete', user._id), 1, /last enabled administrator/);
      const still = await api.deps.store.users.findOne({ _id: user._id });
      expect([still!.role, still!.disabled === true]).toEqual(['admin', false]);
      await newUser(api.deps, { prefix: 'cli-second', password: FLOW_PASSWORD, admin: true });
      expect(await ok('users', 'delete', user._id)).toMatchObject({ deleted: user._id });
      // Only what was done is recorded: the refused demotion, disabling and deletion left nothing.
      expect(await operatorEvents(user._id)).toEqual([['user.deleted', 'operator', undefined]]);
    } finally {
      await api.deps.store.users.updateMany({ _id: { $in: others.map((o) => o._id) } }, { $set: { role: 'admin' } });
    }
  });
});
