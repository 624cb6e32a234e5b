// `keyflow teams`: the operator's team commands as a real process, on a
// database of their own (listing every team must see only this file's teams),
// with an api and worker on it so that admin.team.delete reaches a real admin
// webhook. Checked: the JSON each command prints, the tree seen through `list
// --user` (inherited roles), the audit log with the operator as actor, refusals
// (a team with child teams, the last owner) and usage errors (exit 2, message
// on stderr, nothing on stdout, no stack trace).
import { freePort } from '../../../tools/embedded/ports.js';
import { webhookOutbox } from '../../../lib/store/webhook-outbox.js';
import { updateTeam } from '../../../lib/store/teams.js';
import { useTestApi, eventually, STACK_FRAME, type Json } from '../../support/harness.js';
import { cliOn, jsonLines, runCli } from '../../support/cli.js';
import { testDatabase } from '../../support/database.js';
import { newUser, type FixtureUser } from '../../../tools/fixtures/users.js';
import { addHook, startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';

const database = testDatabase('cli_teams');
const PASSWORD = 'cli teams test password';
let receiver: WebhookReceiver;

const api = useTestApi(database.env);
beforeAll(async () => {
  receiver = await startWebhookReceiver();
}, 60_000);
afterAll(async () => {
  await receiver.close();
});

const { run: cli, ok } = cliOn(database.env, 'teams');
const user = (prefix: string) => newUser(api.deps, { prefix, password: PASSWORD });
const slugs = (teams: Json[]) => teams.map((t: Json) => t.slug);
const auditRecords = async () => jsonLines((await runCli(['audit', 'list', '--limit', '1000'], database.env)).stdout);

describe('keyflow teams', () => {
  let owner: FixtureUser;
  let alice: FixtureUser;
  let bob: FixtureUser;
  beforeAll(async () => {
    [owner, alice, bob] = await Promise.all([user('owner'), user('alice'), user('bob')]);
  });

  it('creates, shows, lists, adds and removes members, and deletes a team with its child team (--cascade)', async () => {
    expect(await ok('list')).toEqual([]);
    const platform = await ok('create', '--name', 'Platform', '--slug', 'platform', '--owner', owner.email, '--description', 'Runs things', '--member-groups');
    expect(platform).toEqual({
      id: expect.any(String),
      name: 'Platform',
      slug: 'platform',
      description: 'Runs things',
      parent_id: null,
      member_groups_enabled: true,
      groups: [],
      created_at: expect.any(String),
      owner: { user_id: owner.id, email: owner.email },
    });
    // A child team under the parent named by slug, its owner by id.
    const infra = await ok('create', '--name', 'Infra', '--slug', 'infra', '--parent', 'platform', '--owner', alice.id);
    expect(infra).toMatchObject({ slug: 'infra', parent_id: platform.id, member_groups_enabled: false, description: '', owner: { user_id: alice.id } });

    expect(await ok('show', 'platform')).toEqual({
      ...withoutOwner(platform),
      members: [{ user_id: owner.id, email: owner.email, role: 'owner', groups: [] }],
    });
    expect((await ok('show', infra.id)).members).toEqual([{ user_id: alice.id, email: alice.email, role: 'owner', groups: [] }]);
    expect(slugs(await ok('list'))).toEqual(['infra', 'platform']);
    expect(slugs(await ok('list', '--limit', '1'))).toEqual(['infra']);
    // The parent's owner owns the child through it: nearest first, the child inherited.
    const owned = await ok('list', '--user', owner.email);
    expect(owned.map((t: Json) => [t.slug, t.role, t.inherited])).toEqual([
      ['platform', 'owner', false],
      ['infra', 'owner', true],
    ]);

    // Groups are defined on the team by its admins (API or pages); the CLI assigns them.
    await updateTeam(api.deps.store, platform.id, { groups: [{ slug: 'oncall', name: 'On call' }] });
    expect(await ok('add-member', 'platform', '--user', alice.email)).toEqual({
      team_id: platform.id,
      user_id: alice.id,
      email: alice.email,
      role: 'member',
      groups: [],
    });
    expect(await ok('add-member', platform.id, '--user', bob.user.username, '--role', 'admin', '--group', 'oncall')).toEqual({
      team_id: platform.id,
      user_id: bob.id,
      email: bob.email,
      role: 'admin',
      groups: ['oncall'],
    });
    expect((await ok('show', 'platform')).members.map((m: Json) => [m.email, m.role, m.groups])).toEqual([
      [owner.email, 'owner', []],
      [alice.email, 'member', []],
      [bob.email, 'admin', ['oncall']],
    ]);
    const bobs = await ok('list', '--user', bob.id);
    expect(bobs.map((t: Json) => [t.slug, t.role, t.inherited, t.my_groups])).toEqual([
      ['platform', 'admin', false, ['oncall']],
      ['infra', 'admin', true, []],
    ]);
    // Alice owns infra directly: her member role on the parent does not lower it.
    expect((await ok('list', '--user', alice.email)).map((t: Json) => [t.slug, t.role, t.inherited])).toEqual([
      ['infra', 'owner', false],
      ['platform', 'member', false],
    ]);

    const again = await cli('add-member', 'platform', '--user', bob.email);
    expect([again.code, again.stdout]).toEqual([1, '']);
    expect(again.stderr).toBe('keyflow: error: the user is already a member of this team\n');

    expect(await ok('remove-member', 'platform', '--user', bob.email)).toEqual({ team_id: platform.id, removed: bob.id, email: bob.email });
    expect(await ok('list', '--user', bob.email)).toEqual([]);
    const notMember = await cli('remove-member', 'platform', '--user', bob.email);
    expect([notMember.code, notMember.stdout, notMember.stderr]).toEqual([1, '', `keyflow: error: ${bob.email} is not a member of team platform\n`]);
    // The last owner stays: a conflict (exit 1), the member kept.
    const lastOwner = await cli('remove-member', 'platform', '--user', owner.id);
    expect([lastOwner.code, lastOwner.stdout]).toEqual([1, '']);
    expect(lastOwner.stderr).toMatch(/^keyflow: error: the team would have no owner left/);
    expect((await ok('show', 'platform')).members).toHaveLength(2);

    // A team with a child team: refused without --cascade, nothing deleted.
    const refused = await cli('delete', 'platform');
    expect([refused.code, refused.stdout]).toEqual([1, '']);
    expect(refused.stderr).toBe('keyflow: error: team platform has child teams; delete or move them first, or pass --cascade to delete them with it\n');
    expect(refused.stderr).not.toMatch(STACK_FRAME);
    expect(slugs(await ok('list'))).toEqual(['infra', 'platform']);

    const hookPath = '/admin-team-delete';
    await addHook(api.deps, receiver, hookPath, { name: 'team deletions', events: ['admin.team.delete'] });
    // Deepest first; memberships go with their teams.
    expect(await ok('delete', 'platform', '--cascade')).toEqual({ deleted: [infra.id, platform.id] });
    expect(await ok('list')).toEqual([]);
    expect(await ok('list', '--user', owner.email)).toEqual([]);
    expect(await api.deps.store.teamMembers.countDocuments({ teamId: { $in: [platform.id, infra.id] } })).toBe(0);

    // admin.team.delete reaches admin webhooks, signed, once per team.
    await eventually(() => expect(receiver.at(hookPath)).toHaveLength(2), 30_000);
    const delivered = receiver.at(hookPath);
    expect(delivered.every((d) => d.verified)).toBe(true);
    expect(delivered.map((d) => d.body.data).sort((a, b) => String(a.slug).localeCompare(String(b.slug)))).toEqual([
      { team_id: infra.id, slug: 'infra', name: 'Infra', cascade_from: platform.id, actor: { type: 'operator' } },
      { team_id: platform.id, slug: 'platform', name: 'Platform', cascade_from: null, actor: { type: 'operator' } },
    ]);

    // The audit log: every change, the operator as actor.
    const records = await auditRecords();
    const byEvent = (event: string) => records.filter((r) => r.event === event);
    for (const r of records.filter((r) => r.event.startsWith('team.') || r.event === 'admin.team.delete')) expect(r.actor).toEqual({ type: 'operator' });
    expect(byEvent('team.create').map((r) => r.data)).toEqual([
      { team_id: infra.id, slug: 'infra', name: 'Infra', parent_id: platform.id, owner_id: alice.id },
      { team_id: platform.id, slug: 'platform', name: 'Platform', parent_id: null, owner_id: owner.id },
    ]);
    expect(byEvent('team.member.add').map((r) => [r.data.user_id, r.data.role, r.data.groups])).toEqual([
      [bob.id, 'admin', ['oncall']],
      [alice.id, 'member', []],
    ]);
    expect(byEvent('team.member.remove').map((r) => r.data.user_id)).toEqual([bob.id]);
    expect(
      byEvent('team.delete')
        .map((r) => r.data.slug)
        .sort(),
    ).toEqual(['infra', 'platform']);
    // Admin webhooks get admin.team.delete; the audit trail has team.delete (above), filtered alike.
    const filtered = jsonLines((await runCli(['audit', 'list', '--event', 'team.delete'], database.env)).stdout);
    expect(filtered.filter((r) => ['infra', 'platform'].includes(r.data.slug as string)).map((r) => r.actor)).toEqual([
      { type: 'operator' },
      { type: 'operator' },
    ]);
  }, 120_000);

  it('deletes while Temporal is unreachable: the command succeeds, the event waits in the outbox', async () => {
    const team = await ok('create', '--name', 'Short lived', '--slug', 'short-lived', '--owner', owner.email);
    const r = await runCli(['teams', 'delete', 'short-lived'], { ...database.env, TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ deleted: [team.id] });
    expect(r.stderr).toMatch(/^keyflow: note: Temporal is not reachable at .*; webhooks get this change \(admin\.team\.delete\) once Keyflow is running\n$/);
    const waiting = await webhookOutbox(api.deps.store).find({ name: 'admin.team.delete' }).toArray();
    expect(waiting.map((e) => e.data)).toEqual([{ team_id: team.id, slug: 'short-lived', name: 'Short lived', cascade_from: null }]);
    expect((await auditRecords()).filter((a) => a.event === 'team.delete' && a.data.team_id === team.id)).toHaveLength(1);
  }, 60_000);

  it('refuses a wrong command line (exit 2) and names what does not exist (exit 1), one line on stderr, nothing on stdout, and changes nothing', async () => {
    const team = await ok('create', '--name', 'Kept', '--slug', 'kept', '--owner', owner.email);
    const cases: [string[], number, RegExp][] = [
      [['create', '--name', 'X', '--slug', 'x'], 2, /--owner is required \(see keyflow teams create --help\)/],
      [['create', '--slug', 'x', '--owner', owner.email], 2, /--name is required/],
      [['create', '--name', 'X', '--slug', 'Bad Slug', '--owner', owner.email], 2, /^keyflow: --slug: must be 1 to 63 lowercase letters/],
      [['create', '--name', ' ', '--slug', 'blank', '--owner', owner.email], 2, /^keyflow: --name: must not be empty/],
      [['create', '--name', 'X', '--slug', 'x', '--owner', 'nobody@example.com'], 1, /^keyflow: error: no user with id, email or username nobody@example.com$/],
      [
        ['create', '--name', 'X', '--slug', 'x', '--owner', owner.email, '--parent', 'no-such-team'],
        1,
        /^keyflow: error: no team with id or slug no-such-team$/,
      ],
      [['add-member', 'kept', '--user', alice.email, '--role', 'boss'], 2, /^keyflow: --role: must be one of member, admin, co-owner, owner/],
      [['add-member', 'kept', '--user', alice.email, '--group', 'nope'], 2, /^keyflow: --group: no such group in this team: nope/],
      [['add-member', 'kept', '--user', 'no-such-user'], 1, /no user with id, email or username no-such-user/],
      [['add-member', 'kept'], 2, /--user is required/],
      [['add-member', 'no-such-team', '--user', alice.email], 1, /no team with id or slug no-such-team/],
      [['remove-member', 'kept', '--user', 'nobody@example.com'], 1, /no user with id, email or username nobody@example.com/],
      [['remove-member', 'kept', '--user', alice.email], 1, /is not a member of team kept/],
      [['show', 'no-such-team'], 1, /^keyflow: error: no team with id or slug no-such-team$/],
      [['show'], 2, /^keyflow: TEAM is required \(see keyflow teams show --help\)$/],
      [['show', 'kept', 'extra'], 2, /unexpected argument: extra/],
      [['delete', 'no-such-team'], 1, /no team with id or slug no-such-team/],
      [['list', '--bogus'], 2, /^keyflow: unknown option --bogus \(see keyflow teams list --help\)$/],
      [['list', '--limit', '0'], 2, /--limit must be an integer from 1 to 1000/],
      [['list', '--limit', '1e3'], 2, /--limit must be an integer/],
      [['list', '--user', 'nobody'], 1, /no user with id, email or username nobody/],
      [['delete', 'kept', '--force'], 2, /unknown option --force/],
      [['rename', 'kept'], 2, /unknown command: teams rename \(see keyflow teams --help\)/],
      [[], 2, /^keyflow: teams needs a command \(see keyflow teams --help\)$/],
    ];
    for (const [args, code, message] of cases) {
      const r = await cli(...args);
      expect({ args, code: r.code, stdout: r.stdout, lines: r.stderr.split('\n').length }).toEqual({ args, code, stdout: '', lines: 2 });
      expect(r.stderr.trimEnd()).toMatch(message);
      expect(r.stderr).not.toMatch(STACK_FRAME);
    }
    expect(slugs(await ok('list'))).toEqual(['kept']);
    expect((await ok('show', team.id)).members).toEqual([{ user_id: owner.id, email: owner.email, role: 'owner', groups: [] }]);
  }, 180_000);
});

/** A created team as `show` prints it (without the `owner` that `create` adds). */
function withoutOwner(team: Json): Json {
  const { owner: _owner, ...rest } = team;
  return rest;
}
