// `keyflow invites` and `keyflow config set registration` as real processes,
// on a database of their own, with an api on it: the link printed once and
// accepted by /signup, the list with states, revocation, the audit log with
// the operator as actor and no token, and refusals: invalid values, usage
// errors and unknown invitations exit 2, revoking a used invitation exits 1;
// never a stack trace.
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { auditRecords } from '../../support/audit.js';
import { cliOn, expectRefused, jsonLines } from '../../support/cli.js';
import { testDatabase } from '../../support/database.js';

const database = testDatabase('cli_invites');

const api = useTestApi(database.env);

const { run: cli, ok } = cliOn(database.env);
/** `audit list` with these arguments, succeeded: its records (one JSON line each). */
const auditList = async (...args: string[]): Promise<Json[]> => {
  const r = await cli('audit', 'list', ...args);
  expect([r.code, r.stderr]).toEqual([0, '']);
  return jsonLines(r.stdout);
};

it('creates (the link once), lists and revokes invitations; /signup takes the link; the audit log has the operator and no token', async () => {
  const created = await ok('invites', 'create', '--email', 'Invitee@Example.com', '--role', 'admin', '--expires-in-days', '30');
  expect(created).toMatchObject({ email: 'invitee@example.com', role: 'admin', state: 'pending', created_by: { type: 'operator' } });
  expect(Math.round((Date.parse(created.expires_at) - Date.now()) / 86_400_000)).toBe(30);
  const token = new URL(created.link).searchParams.get('invite')!;
  expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

  const page = await fetch(`${api.url}/signup?invite=${token}`);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('value="invitee@example.com" readonly');

  const plain = await ok('invites', 'create');
  expect(plain).toMatchObject({ email: null, role: 'user' });
  const listed = await cli('invites', 'list');
  expect(listed.code).toBe(0);
  expect(listed.stdout).not.toContain(token);
  const rows = JSON.parse(listed.stdout) as Json[];
  expect(rows.map((r) => r.id)).toEqual([plain.id, created.id]);
  expect(rows.every((r) => r.link === undefined)).toBe(true);

  const revoked = await ok('invites', 'revoke', created.id);
  expect(revoked).toMatchObject({ id: created.id, state: 'revoked' });
  expect((await fetch(`${api.url}/signup?invite=${token}`)).status).toBe(403);
  expect(await ok('invites', 'list', '--limit', '1')).toHaveLength(1);

  const audit = await auditList('--event', 'invite.create');
  // The audit record keeps no email (admin webhooks get it, in the event's payload).
  expect(audit.find((r: Json) => r.data.invite_id === created.id)).toMatchObject({
    event: 'invite.create',
    actor: { type: 'operator' },
    data: { invite_id: created.id, role: 'admin', expires_at: created.expires_at },
  });
  expect(JSON.stringify(audit)).not.toContain('invitee@example.com');
  const revokes = await auditList('--event', 'invite.revoke');
  expect(revokes.map((r: Json) => r.data)).toContainEqual({ invite_id: created.id });
  expect(JSON.stringify(await auditRecords(api.deps.store, {}))).not.toContain(token);
});

it('config set registration switches the modes /signup follows', async () => {
  expect(await ok('config', 'get', 'registration')).toEqual({ registration: 'invite' });
  expect((await fetch(`${api.url}/signup`)).status).toBe(403);
  expect(await ok('config', 'set', 'registration', 'open')).toMatchObject({ registration: 'open' });
  expect((await fetch(`${api.url}/signup`)).status).toBe(200);
  await ok('config', 'set', 'registration', 'closed');
  expect((await fetch(`${api.url}/signup`)).status).toBe(403);
  expectRefused(await cli('config', 'set', 'registration', 'everyone'), 2, /registration: must be one of open, invite, closed/);
  await ok('config', 'set', 'registration', 'invite');
});

it('refuses bad values and usage errors (exit 2), unknown invitations and revoking a used one (exit 1)', async () => {
  expectRefused(await cli('invites', 'create', '--role', 'owner'), 2, /^keyflow: --role: must be user or admin/);
  expectRefused(await cli('invites', 'create', '--email', 'nope'), 2, /^keyflow: --email: must be an email address/);
  expectRefused(await cli('invites', 'create', '--expires-in-days', '91'), 2, /--expires-in-days must be a whole number from 1 to 90/);
  expectRefused(await cli('invites', 'create', '--expires-in-days', '1.5'), 2, /--expires-in-days/);
  expectRefused(await cli('invites', 'create', '--limit', '3'), 2, /unknown option --limit/);
  expectRefused(await cli('invites', 'create', 'extra'), 2, /unexpected argument: extra/);
  expectRefused(await cli('invites', 'revoke'), 2, /^keyflow: ID is required \(see keyflow invites revoke --help\)\n$/);
  expectRefused(await cli('invites', 'revoke', 'no-such-id'), 1, /^keyflow: error: no invitation with id no-such-id\n$/);
  expectRefused(await cli('invites', 'list', '--limit', '0'), 2, /--limit/);
  expectRefused(await cli('invites', 'nope'), 2, /unknown command: invites nope/);

  const used = await ok('invites', 'create');
  const browser = new HttpUser(api.url);
  const form = await browser.request(new URL(used.link).pathname + new URL(used.link).search);
  const password = 'a long signup passphrase 7401';
  const done = await browser.submit(await form.text(), '/signup', { email: uniqueEmail('cli-used'), name: 'Used', password, confirm: password });
  expect(new URL(done.url).pathname).toBe('/account');
  expect((await ok('invites', 'list')).find((r: Json) => r.id === used.id)).toMatchObject({ state: 'used', used_by: expect.any(String) });
  expectRefused(await cli('invites', 'revoke', used.id), 1, /already been used/);
});
