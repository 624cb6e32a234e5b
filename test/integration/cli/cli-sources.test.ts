// `keyflow sources`: the operator's OAuth sources as a real process, on a
// database of their own, with an api on it. Checked: the JSON each command
// prints (never the secret), the secret sealed in MongoDB (from --client-secret
// and from stdin), partial updates (--no-… flags, --no-client-secret), removal
// with the source's social accounts, the audit log with the operator as actor
// and no secret, and refusals: invalid input, usage and unknown sources exit 2,
// a taken slug exits 1; never a stack trace.
import { open } from '../../../lib/security/kek.js';
import { newId } from '../../../lib/security/secrets.js';
import { auditRecords } from '../../support/audit.js';
import { findSocialAccount, insertSocialAccount } from '../../../lib/store/oauth-sources.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { cliOn, expectRefused } from '../../support/cli.js';
import { testDatabase } from '../../support/database.js';
import { newUser } from '../../../tools/fixtures/users.js';

const database = testDatabase('cli_sources');
const SECRET = 'cli-upstream-secret-9e107d9d372bb682';

const api = useTestApi(database.env);

const { run: cli, ok, withInput: cliWithStdin } = cliOn(database.env, 'sources');

const sealedSecret = async (id: string) => {
  const doc = await api.deps.store.oauthSources.findOne({ _id: id });
  expect(JSON.stringify(doc)).not.toContain(SECRET);
  return doc!.clientSecret ? open(api.deps.kek, doc!.clientSecret, `oauth-source:${id}`).toString() : null;
};

it('adds, lists, updates and removes sources; the secret is sealed, never printed nor audited', async () => {
  const added = await ok(
    'add',
    '--name',
    'Corporate IdP',
    '--slug',
    'corp',
    '--issuer',
    'https://idp.corp.example',
    '--client-id',
    'kf',
    '--client-secret',
    SECRET,
    '--allow-sign-up',
    '--claim',
    'subject=oid',
    '--claim',
    'email_verified=verified',
  );
  // The claim mapping as printed, fed back to --claim: the same names, nothing changes.
  const printed = Object.entries(added.claim_mapping as Record<string, string>).flatMap(([field, claim]) => ['--claim', `${field}=${claim}`]);
  expect(await ok('update', 'corp', ...printed)).toEqual(added);
  expect(added).toMatchObject({
    slug: 'corp',
    kind: 'oidc',
    issuer: 'https://idp.corp.example',
    client_id: 'kf',
    client_secret_set: true,
    scopes: ['openid', 'email', 'profile'],
    allow_sign_up: true,
    enabled: true,
    claim_mapping: { subject: 'oid', email_verified: 'verified', email: 'email' },
  });
  expect(await sealedSecret(added.id)).toBe(SECRET);

  // An oauth2 source, its secret from stdin, disabled.
  const fromStdin = await cliWithStdin(
    `${SECRET}\n`,
    'add',
    '--name',
    'Forge',
    '--slug',
    'forge',
    '--authorization-endpoint',
    'https://forge.example/oauth/authorize',
    '--token-endpoint',
    'https://forge.example/oauth/token',
    '--userinfo-endpoint',
    'https://forge.example/api/user',
    '--client-id',
    'forge-id',
    '--client-secret-stdin',
    '--scope',
    'read:user  user:email',
    '--disabled',
  );
  expect(fromStdin.stderr).toBe('');
  expect(fromStdin.code).toBe(0);
  const forge = JSON.parse(fromStdin.stdout);
  expect(forge).toMatchObject({ kind: 'oauth2', issuer: null, scopes: ['read:user', 'user:email'], enabled: false, client_secret_set: true });
  expect(await sealedSecret(forge.id)).toBe(SECRET);

  const listed = await cli('list');
  expect(listed.code).toBe(0);
  expect((JSON.parse(listed.stdout) as Json[]).map((s) => s.slug)).toEqual(['corp', 'forge']);
  expect(listed.stdout).not.toContain(SECRET);

  // Update by slug and by id: only what is named changes.
  const updated = await ok('update', 'corp', '--name', 'Corp SSO', '--no-allow-sign-up', '--link-by-verified-email', '--no-client-secret');
  expect(updated).toMatchObject({ id: added.id, name: 'Corp SSO', issuer: 'https://idp.corp.example', allow_sign_up: false, link_by_verified_email: true });
  expect(updated).toMatchObject({ client_secret_set: false, claim_mapping: { subject: 'oid' } });
  expect(await sealedSecret(added.id)).toBeNull();
  expect(await ok('update', forge.id, '--enabled')).toMatchObject({ enabled: true, client_secret_set: true });

  // Removing a source unlinks its social accounts.
  const { user } = await newUser(api.deps, { prefix: 'cli-sources', password: 'cli sources test password' });
  await insertSocialAccount(api.deps.store, {
    _id: newId(),
    userId: user._id,
    sourceId: forge.id,
    provider: 'forge',
    providerUserId: '4242',
    email: null,
    linkedAt: new Date(),
    lastSignInAt: null,
  });
  expect(await ok('remove', 'forge')).toEqual({ deleted: forge.id, slug: 'forge', social_accounts_unlinked: 1 });
  expect(await findSocialAccount(api.deps.store, forge.id, '4242')).toBeNull();
  expectRefused(await cli('remove', 'forge'), 1, /^keyflow: error: no OAuth source with id or slug forge\n$/);

  const records = await auditRecords(api.deps.store, { event: /^oauth_source\./ });
  expect(records.map((r) => [r.event, r.data.slug, r.actor])).toEqual([
    ['oauth_source.create', 'corp', { type: 'operator' }],
    ['oauth_source.create', 'forge', { type: 'operator' }],
    ['oauth_source.update', 'corp', { type: 'operator' }],
    ['oauth_source.update', 'forge', { type: 'operator' }],
    ['oauth_source.delete', 'forge', { type: 'operator' }],
  ]);
  expect(records[2]!.data.changed).toEqual(['name', 'allow_sign_up', 'link_by_verified_email', 'client_secret']);
  expect(JSON.stringify(records)).not.toContain(SECRET);
}, 90_000);

it('refuses invalid input and usage errors with exit 2, unknown sources and a taken slug with exit 1', async () => {
  const base = ['--name', 'X', '--client-id', 'x'];
  expectRefused(await cli('add', ...base, '--slug', 'insecure', '--issuer', 'http://idp.example'), 2, /^keyflow: --issuer: must use https/);
  expectRefused(await cli('add', ...base, '--slug', 'Bad Slug', '--issuer', 'https://idp.example'), 2, /^keyflow: --slug: /);
  expectRefused(await cli('add', ...base, '--slug', 'noissuer'), 2, /an oidc source needs issuer/);
  expectRefused(await cli('add', '--name', 'X', '--slug', 'x', '--issuer', 'https://idp.example'), 2, /--client-id is required/);
  expectRefused(await cli('add', ...base, '--slug', 'x', '--issuer', 'https://i.example', '--token-endpoint', 'https://t.example'), 2, /not both/);
  expectRefused(await cli('add', ...base, '--slug', 'x', '--issuer', 'https://i.example', '--claim', 'colour=blue'), 2, /--claim must be FIELD=CLAIM/);
  expectRefused(await cli('add', ...base, '--slug', 'x', '--issuer', 'https://i.example', '--client-secret', 's', '--client-secret-stdin'), 2, /at most one/);
  expectRefused(await cli('add', ...base, '--bogus'), 2, /unknown option --bogus/);
  expectRefused(await cli('update', 'nope', '--name', 'Y'), 1, /no OAuth source with id or slug nope/);
  expectRefused(await cli('update'), 2, /^keyflow: SOURCE is required \(see keyflow sources update --help\)\n$/);
  expectRefused(await cli('remove', 'corp', '--name', 'x'), 2, /unknown option --name/);
  expectRefused(await cli('frobnicate'), 2, /unknown command: sources frobnicate/);

  await ok('add', ...base, '--slug', 'taken', '--issuer', 'https://idp.example');
  await ok('add', ...base, '--slug', 'other', '--issuer', 'https://idp.example');
  expectRefused(await cli('add', ...base, '--slug', 'taken', '--issuer', 'https://idp.example'), 1, /error: the slug taken is taken/);
  expectRefused(await cli('update', 'other', '--slug', 'taken'), 1, /error: the slug taken is taken/);
  expectRefused(
    await cli('update', 'other', '--token-endpoint', 'https://t.example', '--authorization-endpoint', 'https://a.example'),
    2,
    /oauth2 source needs/,
  );
}, 90_000);
