// The operator CLI and the audit trail, on a database of its own: what the
// CLI's own changes record (keys rotate/retire, clients create, apps
// rotate-secret/delete, config set), each with the operator as actor, and
// `keyflow audit list`: its filters (event, prefix, client, user, outcome,
// time range), one JSON record a line, the next page's cursor on stderr, and
// its refusals (exit 2, nothing on stdout, no stack trace).
import { useTestApi, type Json } from '../../support/harness.js';
import { cliOn, expectRefused, jsonLines } from '../../support/cli.js';
import { testDatabase } from '../../support/database.js';
import { newUser } from '../../../tools/fixtures/users.js';

const database = testDatabase('audit_cli');
const api = useTestApi(database.env);
const { run: cli, ok } = cliOn(database.env);

/** `audit list ARGS`, succeeded: its records and what it said on stderr (the next page's cursor, if any). */
async function auditList(...args: string[]): Promise<{ records: Json[]; cursor: string | null }> {
  const r = await cli('audit', 'list', ...args);
  expect(r.code).toBe(0);
  const cursor = /--cursor (\S+)/.exec(r.stderr)?.[1] ?? null;
  if (!cursor) expect(r.stderr).toBe('');
  return { records: jsonLines(r.stdout), cursor };
}

const OPERATOR = { type: 'operator' };

it('records key rotation and retirement with the key as subject', async () => {
  const [rotated] = await ok('keys', 'rotate', '--alg', 'ES256');
  // The new key signs only after the lead time: it can be retired at once.
  expect(await ok('keys', 'retire', rotated.kid)).toMatchObject({ kid: rotated.kid, status: 'retired' });
  // Retiring it again changes nothing and records nothing.
  await ok('keys', 'retire', rotated.kid);
  const { records } = await auditList('--event', 'key.*');
  const mine = records.filter((r) => r.subject.key_id === rotated.kid);
  expect(mine.map((r) => [r.event, r.actor, r.data])).toEqual([
    ['key.retired', OPERATOR, { kid: rotated.kid, alg: 'ES256' }],
    ['key.rotated', OPERATOR, { kid: rotated.kid, alg: 'ES256' }],
  ]);
  // A refused retirement (the key signing now) records nothing.
  const signing = (await ok('keys', 'list')).find((k: Json) => k.alg === 'RS256' && k.signing);
  expectRefused(await cli('keys', 'retire', signing.kid), 1, /signs RS256 tokens/);
  expect((await auditList('--event', 'key.retired')).records.filter((r) => r.subject.key_id === signing.kid)).toEqual([]);
});

it('records a client the operator creates, re-keys and deletes, and finds them by client', async () => {
  const create = await cli('clients', 'create', '--name', 'Audited CLI app', '--redirect-uri', 'https://audited-cli.example/cb', '--id-token-alg', 'RS256');
  expect(create.code).toBe(0);
  const created: Json = JSON.parse(create.stdout);
  const id: string = created.client_id;
  const rotated = await ok('apps', 'rotate-secret', id);
  await ok('apps', 'delete', id, '--yes');
  const { records } = await auditList('--client', id);
  expect(records.map((r) => [r.event, r.actor, r.subject, r.data])).toEqual([
    ['client.deleted', OPERATOR, { client_id: id }, { client_id: id }],
    ['client.secret.rotated', OPERATOR, { client_id: id }, { client_id: id }],
    ['client.created', OPERATOR, { client_id: id }, { client_id: id, via: 'cli' }],
  ]);
  // Never a secret.
  const everything = (await cli('audit', 'list', '--limit', '1000')).stdout;
  for (const secret of [created.client_secret, rotated.client_secret]) expect(everything).not.toContain(secret);
  // Records from the CLI have no request: no IP, user agent or request id.
  expect(records[0]).toMatchObject({ ip: null, user_agent: null, request_id: null, outcome: 'success', stream: 'admin' });
});

it('records config set by setting name, never a secret value', async () => {
  const secret = 'cli-audit-captcha-secret-value';
  await ok('config', 'set', 'captcha_secret_key', secret);
  const { records } = await auditList('--event', 'config.changed', '--limit', '1');
  expect(records.map((r) => [r.actor, r.data])).toEqual([[OPERATOR, { changed: ['captcha_secret_key'], values: {} }]]);
  expect((await cli('audit', 'list', '--limit', '1000')).stdout).not.toContain(secret);
});

it('filters by event or prefix, user, outcome and time, and pages with the cursor it prints', async () => {
  const { user } = await newUser(api.deps, { prefix: 'cli-audit-target', password: 'cli audit test password' });
  await ok('users', 'update', user._id, '--name', 'Audited');
  await ok('users', 'disable', user._id);
  await ok('users', 'enable', user._id);

  const all = await auditList('--user', user._id);
  expect(all.records.map((r) => r.event)).toEqual(['user.enabled', 'user.disabled', 'user.updated']);
  expect((await auditList('--user', user._id, '--event', 'user.disabled')).records.map((r) => r.event)).toEqual(['user.disabled']);
  expect((await auditList('--user', user._id, '--event', 'user.*')).records).toHaveLength(3);
  expect((await auditList('--user', user._id, '--event', 'client.*')).records).toEqual([]);
  expect((await auditList('--user', user._id, '--outcome', 'failure')).records).toEqual([]);
  expect((await auditList('--user', user._id, '--outcome', 'success')).records).toHaveLength(3);
  expect((await auditList('--user', user._id, '--since', '2999-01-01')).records).toEqual([]);
  expect((await auditList('--user', user._id, '--until', '2000-01-01T00:00:00Z')).records).toEqual([]);
  expect((await auditList('--user', user._id, '--since', all.records[2].time, '--until', '2999-01-01')).records).toHaveLength(3);

  // A page at a time: the cursor on stderr leads to the next page, and the last page has none.
  const first = await auditList('--user', user._id, '--limit', '2');
  expect(first.records.map((r) => r.id)).toEqual(all.records.slice(0, 2).map((r) => r.id));
  expect(first.cursor).toEqual(expect.any(String));
  const second = await auditList('--user', user._id, '--limit', '2', '--cursor', first.cursor!);
  expect(second.records.map((r) => r.id)).toEqual([all.records[2].id]);
  expect(second.cursor).toBeNull();
});

it('refuses a bad filter, limit or cursor with exit 2', async () => {
  expectRefused(await cli('audit', 'list', '--event', 'admin.user.update'), 2, /--event: no audit event matches "admin.user.update"/);
  expectRefused(await cli('audit', 'list', '--event', 'nothing.*'), 2, /--event: no audit event/);
  expectRefused(await cli('audit', 'list', '--since', 'yesterday'), 2, /--since must be an ISO 8601 date or time/);
  expectRefused(await cli('audit', 'list', '--until', '2026-11-28T10:00'), 2, /--until must be an ISO 8601 date or time/);
  expectRefused(await cli('audit', 'list', '--outcome', 'maybe'), 2, /--outcome must be success or failure/);
  expectRefused(await cli('audit', 'list', '--limit', '0'), 2, /--limit must be an integer from 1 to 1000/);
  expectRefused(await cli('audit', 'list', '--cursor', 'garbage'), 2, /--cursor: not one this search gave/);
  expectRefused(await cli('audit', 'list', '--cursor', 's:1'), 2, /--cursor: not one this search gave/);
  expectRefused(await cli('audit', 'list', '--nope'), 2, /nope/);
  expectRefused(await cli('audit', 'show'), 2, /unknown command: audit show/);
});
