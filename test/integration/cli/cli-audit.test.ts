// `keyflow audit list`: the audit trail as the operator reads it — the
// events `config set` and team changes recorded, newest first, with their
// actor, one JSON record a line; --event filters, --limit bounds; a secret
// setting's value never shows; bad arguments exit 2. (audit/audit-cli.test.ts:
// the other filters and paging.) Runs on a database of its own with Temporal
// unreachable for the CLI (events stay in the outbox: the audit log is written
// either way).
import { STACK_FRAME } from '../../support/harness.js';
import { jsonLines, runCli } from '../../support/cli.js';
import { testDatabase } from '../../support/database.js';

const env = { ...testDatabase('cli_audit').env, TEMPORAL_ADDRESS: '127.0.0.1:9' };
const list = async (...args: string[]) => {
  const r = await runCli(['audit', 'list', ...args], env);
  expect(r.code).toBe(0);
  return jsonLines(r.stdout);
};

it('lists admin events newest first with their actor; filters by event; never shows a secret setting', async () => {
  expect(await list()).toEqual([]);
  expect((await runCli(['config', 'set', 'pow_difficulty', '20'], env)).code).toBe(0);
  expect((await runCli(['config', 'set', 'captcha_secret_key', 'very-secret-captcha-key'], env)).code).toBe(0);
  expect((await runCli(['config', 'set', 'sudo_mode_ttl_minutes', '7'], env)).code).toBe(0);

  const all = await list();
  expect(all.map((r) => r.data.changed[0])).toEqual(['sudo_mode_ttl_minutes', 'captcha_secret_key', 'pow_difficulty']);
  // Its place in the sealed chain: null until the sealer has come by.
  const { position, ...shown } = all[0]!;
  expect(position === null || typeof position === 'string').toBe(true);
  expect(shown).toEqual({
    id: expect.any(String),
    time: expect.any(String),
    event: 'config.changed',
    stream: 'admin',
    outcome: 'success',
    actor: { type: 'operator' },
    subject: {},
    ip: null,
    user_agent: null,
    request_id: null,
    data: { changed: ['sudo_mode_ttl_minutes'], values: { sudo_mode_ttl_minutes: 7 } },
  });
  expect(JSON.stringify(all)).not.toContain('very-secret-captcha-key');
  expect(await list('--limit', '1')).toHaveLength(1);
  expect(await list('--event', 'webhook.create')).toEqual([]);
  expect(await list('--event', 'config.changed')).toHaveLength(3);
  expect(await list('--event', 'config.*')).toHaveLength(3);
  // Audit-only events (team changes, scope grants) are in the same log and filter the same way.
  expect((await runCli(['users', 'create', '--email', 'audit-owner@example.com', '--password', 'a long password 9'], env)).code).toBe(0);
  expect((await runCli(['teams', 'create', '--name', 'Audited', '--slug', 'audited', '--owner', 'audit-owner@example.com'], env)).code).toBe(0);
  expect(await list('--event', 'team.create')).toEqual([expect.objectContaining({ event: 'team.create', actor: { type: 'operator' } })]);
}, 60_000);

it('refuses bad arguments with exit 2 and one line', async () => {
  for (const args of [
    ['audit'],
    ['audit', 'show'],
    ['audit', 'list', '--limit', '0'],
    ['audit', 'list', '--limit', 'x'],
    ['audit', 'list', '--event', 'app.created'],
    ['audit', 'list', '--event', 'admin.config.update'],
    ['audit', 'list', 'extra'],
  ]) {
    const r = await runCli(args, env);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(STACK_FRAME);
  }
}, 60_000);
