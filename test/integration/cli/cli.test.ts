import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RunningApi } from '../../../api/server.js';
import { freePort } from '../../../tools/embedded/ports.js';
import { startFerretDb } from '../../../tools/embedded/servers.js';
import { openStore, type Store } from '../../../lib/store/db.js';
import { hashSecret } from '../../../lib/security/secrets.js';
import { createPersonalAccessToken } from '../../../lib/store/personal-access-tokens.js';
import { createClient } from '../../../lib/store/clients.js';
import { generateKey } from 'openpgp';
import { addGpgKey } from '../../../lib/store/gpg-keys.js';
import { parsePublicKey } from '../../../lib/accounts/gpg-public-key.js';
import { addDomain } from '../../../lib/store/custom-domains.js';
import { insertSocialAccount } from '../../../lib/store/oauth-sources.js';
import { createTeam, userActor } from '../../../lib/teams/team-changes.js';
import { eventually, startTestApi, testConfig, type Json } from '../../support/harness.js';
import { expectRefused, jsonLines, runCli, runCli as runCliShared, runCliProcess } from '../../support/cli.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { expectFamilyRevoked, newTestRp, runCodeFlow } from '../../support/token-flow.js';
import { postForm } from '../../support/http.js';
import { addTestPasskey } from '../../support/passkeys.js';
import { RETIRED_KEY_RETENTION_SECONDS, SIGNING_LEAD_SECONDS } from '../../../lib/model/key-phases.js';
import { COMMANDS } from '../../../cli/commands.js';

let store: Store;
beforeAll(() => {
  store = openStore(testConfig());
});
afterAll(() => store.close());

const json = (stdout: string) => JSON.parse(stdout);

describe('keyflow users', () => {
  it('creates a user with a hashed password and lists it', async () => {
    const email = uniqueEmail('cli');
    const created = await runCli(['users', 'create', '--email', email, '--password', 'a long password 1', '--name', 'Cli User']);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const user = json(created.stdout);
    expect(user).toMatchObject({ email, name: 'Cli User', role: 'user', email_verified: true, totp_enabled: false, passkeys: 0 });
    expect(user).not.toHaveProperty('passwordHash');
    const doc = await store.users.findOne({ _id: user.id });
    expect(doc?.passwordHash).toMatch(/^scrypt\$/);
    expect(doc?.passwordHash).not.toContain('a long password 1');

    const list = await runCli(['users', 'list']);
    expect(list.code).toBe(0);
    expect(json(list.stdout).map((u: { email: string }) => u.email)).toContain(email);
  });

  it('creates admins with --admin', async () => {
    const r = await runCli(['users', 'create', '--email', uniqueEmail('adm'), '--password', 'a long password 2', '--admin']);
    expect(json(r.stdout).role).toBe('admin');
  });

  it('refuses a duplicate email with exit 1', async () => {
    const email = uniqueEmail('dup');
    await runCli(['users', 'create', '--email', email, '--password', 'a long password 3']);
    const r = await runCli(['users', 'create', '--email', email.toUpperCase(), '--password', 'a long password 3']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^keyflow: error: a user with email .* already exists\n$/);
  });

  it.each([
    [['users', 'create', '--email', 'x@example.com'], /give the password with one of --password and --password-stdin/],
    [['users', 'create', '--email', 'not-an-email', '--password', 'a long password'], /--email: must be an email address/],
    [['users', 'create', '--email', 'y@example.com', '--password', 'short'], /--password: must be at least 12 characters/],
    [['users', 'create', '--email', 'z@example.com', '--password', 'a long password', '--bogus'], /unknown option --bogus/],
    [['users', 'remove'], /unknown command: users remove/],
    [['frobnicate'], /unknown command: frobnicate/],
    [[], /usage: keyflow/],
  ])('%j is a usage error: exit 2, message on stderr, nothing on stdout', async (args, message) => {
    expectRefused(await runCli(args), 2, message);
  });

  it.each([
    [['users', 'create', '--password', 'a long password'], 'keyflow: --email is required (see keyflow users create --help)'],
    [['users', 'create', '--email'], 'keyflow: --email needs a value (see keyflow users create --help)'],
    [['apps', 'show', 'x', 'y'], 'keyflow: unexpected argument: y (see keyflow apps show --help)'],
    [['users', 'show'], 'keyflow: USER is required (see keyflow users show --help)'],
    [['keys', 'rotate', '--alg', 'HS256'], 'keyflow: --alg must be one of ML-DSA-65, RS256, PS256, ES256 (see keyflow keys rotate --help)'],
    [['users', 'remove'], 'keyflow: unknown command: users remove (see keyflow users --help)'],
    [['users'], 'keyflow: users needs a command (see keyflow users --help)'],
    [['frobnicate'], 'keyflow: unknown command: frobnicate (see keyflow --help)'],
  ])('refuses %j in exactly one line that points to the help, never the usage text (exit 2)', async (args, line) => {
    const r = await runCli(args);
    expectRefused(r, 2, /./);
    expect(r.stderr).toBe(`${line}\n`);
  });

  it('reads the command line before MongoDB: `restore` without --from is a usage error even when MongoDB is unreachable', async () => {
    const unreachable = { MONGODB_URI: `mongodb://127.0.0.1:${await freePort()}/` };
    const r = await runCliProcess(['restore'], unreachable);
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', 'keyflow: --from is required (see keyflow restore --help)\n']);
    expectRefused(await runCli(['users', 'create', '--email', 'x@example.com', '--bogus'], unreachable), 2, /^keyflow: unknown option --bogus \(see/);
    expectRefused(await runCli(['teams', 'add-member', 'some-team'], unreachable), 2, /^keyflow: --user is required/);
  });

  it('writes only JSON on stdout: a list in its own process parses, nothing else on stdout', async () => {
    const r = await runCliProcess(['users', 'list']);
    expect(r.code).toBe(0);
    expect(Array.isArray(JSON.parse(r.stdout))).toBe(true);
  });

  it("answers `--help` of a command with that command's help, and of a group with its commands, exit 0 (no MongoDB asked)", async () => {
    const create = await runCli(['clients', 'create', '--help'], { MONGODB_URI: 'mongodb://127.0.0.1:9/' });
    expect([create.code, create.stderr]).toEqual([0, '']);
    expect(create.stdout).toMatch(/^usage: keyflow clients create --name N /);
    expect(create.stdout).toMatch(/--machine-access RESOURCE=SCOPE\[,SCOPE…\]\n {6}what it may get for itself with client_credentials/);
    const users = await runCli(['users', '--help']);
    expect([users.code, users.stdout.split('\n').filter((l) => l.startsWith('keyflow users ')).length]).toEqual([0, 8]);
    expect((await runCli(['apps', 'update', '--help'])).stdout).toMatch(/^usage: keyflow clients update CLIENT_ID/);
    expectRefused(await runCli(['users', 'frobnicate', '--help']), 2, /unknown command: users frobnicate/);
  });

  it('answers `--help` of every command with its own help alone, exit 0, without MongoDB', async () => {
    for (const def of COMMANDS) {
      const r = await runCli([...def.name.split(' '), '--help'], { MONGODB_URI: 'mongodb://127.0.0.1:9/' });
      expect([def.name, r.code, r.stderr]).toEqual([def.name, 0, '']);
      expect(r.stdout.startsWith(`usage: keyflow ${def.name}`)).toBe(true);
      expect(r.stdout).toContain(def.summary);
      // That command only: one synopsis, none of the group's list (`keyflow …` lines) nor the whole usage.
      expect([def.name, r.stdout.match(/^usage: /gm)?.length, r.stdout.match(/^ *keyflow /gm)]).toEqual([def.name, 1, null]);
    }
  });
});

describe('keyflow users delete', () => {
  let api: RunningApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.stop());

  /** A user signed in, with an OAuth grant (refresh family), a personal access token, a passkey and a consent. */
  async function userWithEverything() {
    const rp = await newTestRp(api, { allowedScopes: ['openid', 'apps:read', 'offline_access'] });
    const { tokens, user, agent, email } = await runCodeFlow(api, rp, 'openid apps:read offline_access');
    const { token: pat } = await createPersonalAccessToken(store, user._id, { name: 'cli test', scope: ['apps:read'], expiresInDays: 1 });
    await addTestPasskey(store, user._id);
    const team = await createTeam(api.deps, userActor(user._id, { type: 'user', userId: user._id }), {
      name: 'Deleted owner’s team',
      slug: `deleted-owner-${user._id.slice(0, 8)}`,
      description: '',
      parent_id: null,
      member_groups_enabled: false,
    });
    const { publicKey } = await generateKey({ type: 'curve25519', userIDs: [{ name: 'Deleted', email }] });
    await addGpgKey(store, user._id, await parsePublicKey(publicKey));
    await addDomain(store, user._id, `deleted-${user._id.slice(0, 8)}.example`);
    await insertSocialAccount(store, {
      _id: `social-${user._id}`,
      userId: user._id,
      sourceId: 'some-source',
      provider: 'upstream',
      providerUserId: `upstream-${user._id}`,
      email: null,
      linkedAt: new Date(),
      lastSignInAt: null,
    });
    return { rp, tokens, user, agent, email, pat, team };
  }
  const apps = (token: string) => fetch(`${api.url}/api/oauth/me/apps`, { headers: { authorization: `Bearer ${token}` } });

  it('deletes a user by email with their sessions, passkeys, personal access tokens and consents, and revokes their grants and refresh families', async () => {
    const { rp, tokens, user, agent, email, pat, team } = await userWithEverything();
    expect((await apps(tokens.access_token)).status).toBe(200);
    expect((await apps(pat)).status).toBe(200);
    expect((await agent.request('/account')).status).toBe(200);

    const r = await runCli(['users', 'delete', email]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(json(r.stdout)).toEqual({
      deleted: user._id,
      email,
      sessions: 1,
      passkeys: 1,
      personal_access_tokens: 1,
      consents: 1,
      team_memberships: 1,
      gpg_keys: 1,
      domains: 1,
      social_accounts: 1,
      grants_revoked: 1,
    });

    expect(await store.users.findOne({ _id: user._id })).toBeNull();
    expect(await store.passkeys.findOne({ userId: user._id })).toBeNull();
    expect(await store.consents.findOne({ userId: user._id })).toBeNull();
    // Memberships go; the team the user alone owned stays, for an operator or its ancestors' managers to take over.
    expect(await store.teamMembers.findOne({ userId: user._id })).toBeNull();
    expect(await store.teams.findOne({ _id: team._id })).not.toBeNull();
    expect(await store.gpgKeys.findOne({ userId: user._id })).toBeNull();
    expect(await store.domains.findOne({ userId: user._id })).toBeNull();
    expect(await store.socialAccounts.findOne({ userId: user._id })).toBeNull();
    expect((await agent.request('/account')).headers.get('location')).toBe('/login'); // signed out
    expect((await apps(tokens.access_token)).status).toBe(401);
    expect((await apps(pat)).status).toBe(401);
    const refreshed = await postForm(api, '/api/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, rp.auth);
    expect([refreshed.res.status, refreshed.body.error]).toEqual([400, 'invalid_grant']);
    await expectFamilyRevoked(api, tokens.access_token);
    // The audit trail names the user as the subject, nothing more.
    const audit = jsonLines((await runCli(['audit', 'list', '--event', 'user.deleted', '--user', user._id])).stdout);
    expect(audit).toEqual([expect.objectContaining({ event: 'user.deleted', actor: { type: 'operator' }, subject: { user_id: user._id }, data: {} })]);
  });

  it('deletes a user by id; an unknown user is not found (exit 1, one line) and deletes nothing', async () => {
    const { user, tokens } = await userWithEverything();
    const unknown = await runCli(['users', 'delete', 'no-such-user-id']);
    expect([unknown.code, unknown.stdout, unknown.stderr]).toEqual([1, '', 'keyflow: error: no user with id, email or username no-such-user-id\n']);
    expect((await runCli(['users', 'delete', 'nobody@example.com'])).code).toBe(1);
    expect((await runCli(['users', 'delete'])).code).toBe(2);
    expect((await apps(tokens.access_token)).status).toBe(200);

    const r = await runCli(['users', 'delete', user._id]);
    expect(r.code).toBe(0);
    expect(json(r.stdout)).toMatchObject({ deleted: user._id, grants_revoked: 1 });
    expect((await apps(tokens.access_token)).status).toBe(401);
    expect((await runCli(['users', 'delete', user._id])).code).toBe(1);
  });
});

describe('keyflow clients', () => {
  it('creates a confidential client: secret shown once, stored only as a hash', async () => {
    const r = await runCli([
      'clients',
      'create',
      '--name',
      'Web RP',
      '--redirect-uri',
      'https://rp.example/cb',
      '--redirect-uri',
      'http://localhost:8080/cb',
      '--scope',
      'openid profile email offline_access',
    ]);
    expect(r.code).toBe(0);
    const out = json(r.stdout);
    expect(out.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The app as the admin API shows it, and the secret as the app API shows it on create.
    expect(out).toMatchObject({
      client_id: expect.any(String),
      public: false,
      token_endpoint_auth_method: 'client_secret_basic',
      allowed_scopes: ['openid', 'profile', 'email', 'offline_access'],
      redirect_uris: [
        { type: 'equals', value: 'https://rp.example/cb' },
        { type: 'equals', value: 'http://localhost:8080/cb' },
      ],
      id_token_signed_response_alg: 'ML-DSA-65',
      owner_user_id: null,
      is_active: true,
    });
    const doc = await store.clients.findOne({ _id: out.client_id });
    expect(doc?.secretHash).toBe(hashSecret(out.client_secret));
    expect(JSON.stringify(doc)).not.toContain(out.client_secret);

    const list = json((await runCli(['clients', 'list'])).stdout);
    const listed = list.find((c: { client_id: string }) => c.client_id === out.client_id);
    const { client_secret: _secret, ...app } = out;
    expect(listed).toEqual(app);
    expect(JSON.stringify(list)).not.toContain(out.client_secret);
    expect(listed).not.toHaveProperty('secretHash');
  });

  it('creates a public client without a secret, and sets every Application field', async () => {
    const r = await runCli([
      'clients',
      'create',
      '--name',
      'SPA',
      '--public',
      '--redirect-uri-wildcard',
      'https://*.spa.example/cb',
      '--redirect-uri-regex',
      '^https://spa\\.example/(a|b)$',
      '--post-logout-redirect-uri',
      'https://spa.example/bye',
      '--backchannel-logout-uri',
      'https://spa.example/bcl',
      '--oidc-field',
      'teams',
      '--oidc-field',
      'apps',
      '--id-token-alg',
      'RS256',
      '--userinfo-alg',
      'RS256',
      '--verified',
      '--description',
      'single page app',
    ]);
    expect(r.stderr).toBe('');
    const out = json(r.stdout);
    expect(out).not.toHaveProperty('client_secret');
    expect(out).toMatchObject({
      public: true,
      token_endpoint_auth_method: 'none',
      redirect_uris: [
        { type: 'wildcard', value: 'https://*.spa.example/cb' },
        { type: 'regex', value: '^https://spa\\.example/(a|b)$' },
      ],
      post_logout_redirect_uris: ['https://spa.example/bye'],
      backchannel_logout_uri: 'https://spa.example/bcl',
      oidc_fields: ['teams', 'apps'],
      id_token_signed_response_alg: 'RS256',
      userinfo_signed_response_alg: 'RS256',
      is_verified: true,
      description: 'single page app',
    });
  });

  it.each([
    [['--redirect-uri', 'http://rp.example/cb'], /must use https/],
    [['--redirect-uri', 'https://rp.example/cb#frag'], /must not contain a fragment/],
    [['--redirect-uri', 'https://user:pw@rp.example/cb'], /must not contain userinfo/],
    [['--auth-method', 'client_secret_jwt'], /^keyflow: --auth-method: /],
    [['--auth-method', 'private_key_jwt'], /private_key_jwt needs jwks or jwks_uri/],
    [['--scope', 'openid launch-missiles'], /unknown scope "launch-missiles"/],
    [['--public', '--auth-method', 'client_secret_basic'], /public client uses token_endpoint_auth_method none/],
    [['--jwks', '{not json'], /--jwks must be a JSON Web Key Set/],
    [['--public', '--no-pkce'], /public clients always use PKCE/],
    [['--allowed-resource', 'not a uri'], /^keyflow: --allowed-resource: /],
    [['--redirect-uri', 'not a uri'], /^keyflow: --redirect-uri: .* \(see keyflow clients create --help\)\n$/],
    [['--jwks-uri', 'http://keys.example/jwks'], /must be an absolute https URI/],
    [['--userinfo-alg', 'HS256'], /userinfo_signed_response_alg must be one of/],
  ])('refuses %j with exit 2', async (extra, message) => {
    const args = extra.includes('--redirect-uri') ? extra : ['--redirect-uri', 'https://rp.example/cb', ...extra];
    const r = await runCli(['clients', 'create', '--name', 'Bad', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });

  it('refuses a client without a redirect URI when it uses authorization_code, said or by default (none is ever learned)', async () => {
    for (const grants of [[], ['--grant-type', 'authorization_code', '--grant-type', 'device_code']]) {
      const r = await runCli(['clients', 'create', '--name', 'No redirect', ...grants]);
      expectRefused(r, 2, /^keyflow: --redirect-uri: at least one redirect URI is required \(see keyflow clients create --help\)\n$/);
    }
    expectRefused(await runCli(['clients', 'create', '--name', 'X', '--grant-type', 'password']), 2, /^keyflow: --grant-type: unknown grant type "password"/);
    const deviceOnly = await runCli(['clients', 'create', '--name', 'Device only', '--public', '--grant-type', 'device_code']);
    expect(deviceOnly.code).toBe(0);
    expect(json(deviceOnly.stdout).redirect_uris).toEqual([]);
  });
});

describe('keyflow output through a pipe', () => {
  // Far more than a pipe's 64 KiB buffer: the whole list must reach the reader, not its first 64 KiB.
  const env = { MONGODB_DATABASE: `cli_pipe_${Date.now()}` };
  let own: Store;
  beforeAll(() => {
    own = openStore(testConfig(env));
  });
  afterAll(() => own.close());

  it('prints every client of a long list as one valid JSON document', async () => {
    const names = Array.from({ length: 400 }, (_, i) => `Piped RP ${i}`);
    for (const name of names) await createClient(own, { name, redirectUris: [{ type: 'equals', value: 'https://rp.example/cb' }] });
    const r = await runCliProcess(['clients', 'list'], env);
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(128 * 1024);
    expect(
      json(r.stdout)
        .map((c: { name: string }) => c.name)
        .sort(),
    ).toEqual([...names].sort());
  });
});

describe('keyflow config', () => {
  // Site settings are global: this test works on a database of its own.
  const env = { MONGODB_DATABASE: `cli_config_${Date.now()}` };
  const runCli = (args: string[]) => runCliShared(args, env);

  it('gets defaults, sets validated values, masks secrets', async () => {
    const all = json((await runCli(['config', 'get'])).stdout);
    expect(all).toHaveProperty('sudo_mode_ttl_minutes');
    expect(all).toHaveProperty('require_captcha_for_2fa');
    const set = await runCli(['config', 'set', 'sudo_mode_ttl_minutes', '15']);
    expect(set.code).toBe(0);
    expect(json((await runCli(['config', 'get', 'sudo_mode_ttl_minutes'])).stdout)).toEqual({ sudo_mode_ttl_minutes: 15 });
    await runCli(['config', 'set', 'require_captcha_for_2fa', 'true']);
    expect(json((await runCli(['config', 'get', 'require_captcha_for_2fa'])).stdout)).toEqual({ require_captcha_for_2fa: true });
    await runCli(['config', 'set', 'captcha_secret_key', 'very-secret-value']);
    const shown = await runCli(['config', 'get']);
    expect(shown.stdout).not.toContain('very-secret-value');
    expect(json(shown.stdout).captcha_secret_key).toBe('********');
  });

  it.each([
    [['config', 'set', 'sudo_mode_ttl_minutes', 'ten'], /sudo_mode_ttl_minutes: must be a number/],
    [['config', 'set', 'sudo_mode_ttl_minutes', '99999'], /must be at most 1440/],
    [['config', 'set', 'require_captcha_for_2fa', 'yes'], /must be true or false/],
    [['config', 'set', 'captcha_provider', 'clippy'], /must be one of none, hcaptcha, turnstile, recaptcha, pow/],
    [['config', 'set', 'no_such_key', '1'], /unknown setting no_such_key/],
    [['config', 'get', 'no_such_key'], /unknown setting no_such_key/],
    [['config', 'set', 'sudo_mode_ttl_minutes'], /^keyflow: VALUE is required \(see keyflow config set --help\)\n$/],
  ])('refuses %j with exit 2', async (args, message) => {
    const r = await runCli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});

describe('keyflow keys', () => {
  // Rotation changes what every process signs with: this test works on a database of its own.
  const env = { MONGODB_DATABASE: `cli_keys_${Date.now()}` };
  const runCli = (args: string[]) => runCliShared(args, env);
  let keysStore: Store;
  beforeAll(() => {
    keysStore = openStore(testConfig(env));
  });
  afterAll(async () => {
    await keysStore.db.dropDatabase();
    await keysStore.close();
  });

  it('lists, rotates and retires keys, with their phases and times', async () => {
    expect(json((await runCli(['keys', 'list'])).stdout)).toEqual([]);
    // The first keys of an install sign at once.
    const first = json((await runCli(['keys', 'rotate'])).stdout);
    expect(first[0]).toEqual({
      kid: expect.any(String),
      alg: 'ML-DSA-65',
      generation: 1,
      status: 'active',
      phase: 'signing',
      signing: true,
      created_at: expect.any(String),
      signs_from: first[0].created_at,
      retired_at: null,
      published_until: null,
    });
    expect(first.map((k: { alg: string; generation: number }) => [k.alg, k.generation])).toEqual([
      ['ML-DSA-65', 1],
      ['RS256', 1],
      ['PS256', 1],
      ['ES256', 1],
    ]);
    const signingRs = first[1];
    /** The first keys of the other algorithms, as `keys list` orders them (by alg): unaffected by the RS256 rotation. */
    const others = (phase: string) => ['ES256', 'ML-DSA-65', 'PS256'].map((alg) => [first.find((k: Json) => k.alg === alg).kid, phase]);

    // A rotated key is published first; the previous one signs until the new one takes over.
    const [rotated] = json((await runCli(['keys', 'rotate', '--alg', 'RS256'])).stdout);
    expect(rotated).toMatchObject({ alg: 'RS256', generation: 2, status: 'active', phase: 'published', signing: false, published_until: null });
    expect(Date.parse(rotated.signs_from) - Date.parse(rotated.created_at)).toBe(SIGNING_LEAD_SECONDS * 1000);
    const phases = async () => json((await runCli(['keys', 'list'])).stdout).map((k: { kid: string; phase: string }) => [k.kid, k.phase]);
    expect(await phases()).toEqual([...others('signing'), [signingRs.kid, 'signing'], [rotated.kid, 'published']]);
    const refused = await runCli(['keys', 'retire', signingRs.kid]);
    expect([refused.code, refused.stderr.trim()]).toEqual([
      1,
      `keyflow: error: key ${signingRs.kid} signs RS256 tokens until ${rotated.signs_from}, when the newer key takes over: retire it after that`,
    ]);

    // The lead time has passed (moved back in the database: the CLI runs on the real clock).
    const lead = SIGNING_LEAD_SECONDS * 1000;
    await keysStore.signingKeys.updateOne(
      { _id: rotated.kid },
      { $set: { createdAt: new Date(Date.parse(rotated.created_at) - lead), signsFrom: new Date(Date.parse(rotated.signs_from) - lead) } },
    );
    expect(await phases()).toEqual([...others('signing'), [signingRs.kid, 'previous'], [rotated.kid, 'signing']]);
    const refusedNew = await runCli(['keys', 'retire', rotated.kid]);
    expect([refusedNew.code, refusedNew.stderr]).toEqual([1, expect.stringMatching(/signs RS256 tokens now: rotate first/)]);
    const retired = json((await runCli(['keys', 'retire', signingRs.kid])).stdout);
    expect(retired).toMatchObject({ kid: signingRs.kid, status: 'retired', phase: 'retiring', signing: false, retired_at: expect.any(String) });
    expect(Date.parse(retired.published_until) - Date.parse(retired.retired_at)).toBe(RETIRED_KEY_RETENTION_SECONDS * 1000);
    expect(json((await runCli(['keys', 'list'])).stdout).find((k: Json) => k.kid === signingRs.kid)).toEqual(retired);
  });

  it('takes a kid that starts with "-" (base64url) as a kid, not as an option', async () => {
    const unknown = await runCli(['keys', 'retire', '-Xk2v']);
    expect([unknown.code, unknown.stderr.trim()]).toEqual([1, 'keyflow: error: no signing key with kid -Xk2v']);
  });

  it('refuses an unknown algorithm', async () => {
    const r = await runCli(['keys', 'rotate', '--alg', 'HS256']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--alg must be one of ML-DSA-65, RS256, PS256, ES256/);
  });
});

describe('operational errors', () => {
  it('says MongoDB is unreachable in one line, exit 1', async () => {
    const r = await runCli(['users', 'list'], { MONGODB_URI: `mongodb://127.0.0.1:${await freePort()}/` });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^keyflow: error: cannot reach MongoDB/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe("the embedded FerretDB's output", () => {
  it('shows no warning for a CLI command (no endSessions at close), and still shows a real warning', async () => {
    const port = await freePort();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyflow-cli-quiet-'));
    const lines: string[] = [];
    const ferret = await startFerretDb({ port, dataDir, output: (line) => lines.push(line) });
    const uri = `mongodb://127.0.0.1:${port}/`;
    try {
      const created = await runCli(['users', 'create', '--email', uniqueEmail('quiet'), '--password', 'a quiet long password'], { MONGODB_URI: uri });
      expect(created.code).toBe(0);
      expect((await runCli(['users', 'list'], { MONGODB_URI: uri })).code).toBe(0);
      // A command FerretDB does not know is a real warning, and it comes after the CLI's: once it shows, the CLI's would have.
      const own = openStore(testConfig({ MONGODB_URI: uri }));
      await expect(own.db.command({ noSuchKeyflowCommand: 1 })).rejects.toThrow(/no such command/);
      await own.close();
      await eventually(() => expect(lines.join('\n')).toContain("no such command: 'noSuchKeyflowCommand'"));
      expect(lines.filter((line) => /endSessions|Connection stopped/.test(line))).toEqual([]);
    } finally {
      await ferret.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
