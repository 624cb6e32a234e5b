// `keyflow teams ...`: the operator's view of the team tree and changes to it.
// The operator acts instance-wide, as an owner of every team, through the same
// changes as the APIs (teams/team-changes.ts): the same limits, the same audit
// records, and admin.team.delete reaches admin webhooks like other CLI events.
// A team or user the command line names that does not exist, and a refused
// change (conflict), exit 1.
import { type ParseArgsConfig } from 'node:util';
import type { Config } from '../lib/config/env.js';
import { ConflictError, NotFoundError, parseOrRefuse } from '../lib/model/errors.js';
import { MAX_LISTED_TEAMS, NewMemberInput, NewTeamInput, teamJson, userTeamJson, type TeamDoc, type TeamMemberDoc } from '../lib/model/teams.js';
import type { Store } from '../lib/store/db.js';
import { findMember, findTeam, findTeamBySlug, hasChildTeams, listAllTeams, membersOf } from '../lib/store/teams.js';
import { emailsByUserId } from '../lib/store/users-by-id.js';
import { userTeams } from '../lib/teams/membership.js';
import { createTeam, deleteTeam, type TeamActor, type TeamDeps } from '../lib/teams/team-changes.js';
import { addMember, removeTeamMember } from '../lib/teams/member-changes.js';
import { cliAudit, cliEvents, OPERATOR } from './events.js';
import { print, UsageError, parseOrUsage } from './usage.js';
import { optionsOf } from './commands.js';
import { userByRef } from './user-ref.js';

const ACTOR: TeamActor = { userId: null, instanceWide: true, event: OPERATOR };

type Options = NonNullable<ParseArgsConfig['options']>;

/** Strict options; `args` names the positional arguments, each required. */
function commandLine(argv: string[], options: Options, args: string[] = []) {
  const parsed = parseOrUsage({ args: argv, options, allowPositionals: true, strict: true });
  const { values, positionals } = parsed;
  if (positionals.length > args.length) throw new UsageError(`unexpected argument: ${positionals[args.length]}`);
  args.forEach((name, i) => {
    if (positionals[i] === undefined) throw new UsageError(`${name} is required`);
  });
  const text = (key: string) => values[key] as string | undefined;
  const needed = (key: string) => text(key) ?? raise(new UsageError(`--${key} is required`));
  return { positionals, text, needed, flag: (key: string) => values[key] === true, list: (key: string) => (values[key] as string[] | undefined) ?? [] };
}

function raise(err: Error): never {
  throw err;
}

/** A team by id or slug. */
async function teamByRef(store: Store, ref: string): Promise<TeamDoc> {
  return (await findTeam(store, ref)) ?? (await findTeamBySlug(store, ref)) ?? raise(new NotFoundError(`no team with id or slug ${ref}`));
}

const memberJson = (m: TeamMemberDoc, email: string | null) => ({ user_id: m.userId, email, role: m.role, groups: m.groups });

function listLimit(raw: string | undefined): number {
  if (raw === undefined) return 100;
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < 1 || limit > MAX_LISTED_TEAMS) throw new UsageError(`--limit must be an integer from 1 to ${MAX_LISTED_TEAMS}`);
  return limit;
}

async function list(store: Store, argv: string[]) {
  const cl = commandLine(argv, optionsOf('teams list'));
  const limit = listLimit(cl.text('limit'));
  const ref = cl.text('user');
  if (ref === undefined) {
    print((await listAllTeams(store, limit)).map(teamJson));
    return;
  }
  const user = await userByRef(store, ref);
  print((await userTeams(store, user._id, limit)).map(userTeamJson));
}

async function show(store: Store, argv: string[]) {
  const team = await teamByRef(store, commandLine(argv, optionsOf('teams show'), ['the team (id or slug)']).positionals[0]!);
  const members = await membersOf(store, team._id);
  const emails = await emailsByUserId(
    store,
    members.map((m) => m.userId),
  );
  print({ ...teamJson(team), members: members.map((m) => memberJson(m, emails.get(m.userId) ?? null)) });
}

async function create(deps: TeamDeps, argv: string[]) {
  const cl = commandLine(argv, optionsOf('teams create'));
  const fields = { name: cl.needed('name'), slug: cl.needed('slug'), description: cl.text('description'), member_groups_enabled: cl.flag('member-groups') };
  const ownerRef = cl.needed('owner');
  const parentRef = cl.text('parent');
  const parent = parentRef === undefined ? null : await teamByRef(deps.store, parentRef);
  const team = parseOrRefuse(NewTeamInput, { ...fields, parent_id: parent?._id ?? null });
  const owner = await userByRef(deps.store, ownerRef);
  const created = await createTeam(deps, ACTOR, team, owner._id);
  print({ ...teamJson(created), owner: { user_id: owner._id, email: owner.email } });
}

async function addMemberCommand(deps: TeamDeps, argv: string[]) {
  const cl = commandLine(argv, optionsOf('teams add-member'), ['the team (id or slug)']);
  const team = await teamByRef(deps.store, cl.positionals[0]!);
  const member = parseOrRefuse(NewMemberInput, { user: cl.needed('user'), role: cl.text('role'), groups: cl.list('group') });
  const user = await userByRef(deps.store, member.user);
  const added = await addMember(deps, ACTOR, team._id, { ...member, user: user._id });
  print({ team_id: team._id, ...memberJson(added, user.email) });
}

async function removeMemberCommand(deps: TeamDeps, argv: string[]) {
  const cl = commandLine(argv, optionsOf('teams remove-member'), ['the team (id or slug)']);
  const team = await teamByRef(deps.store, cl.positionals[0]!);
  const user = await userByRef(deps.store, cl.needed('user'));
  if (!(await findMember(deps.store, team._id, user._id))) throw new NotFoundError(`${user.email} is not a member of team ${team.slug}`);
  await removeTeamMember(deps, ACTOR, team._id, user._id);
  print({ team_id: team._id, removed: user._id, email: user.email });
}

async function deleteCommand(deps: TeamDeps, argv: string[]) {
  const cl = commandLine(argv, optionsOf('teams delete'), ['the team (id or slug)']);
  const team = await teamByRef(deps.store, cl.positionals[0]!);
  const cascade = cl.flag('cascade');
  // Said here in the CLI's words; the change itself refuses it all the same.
  if (!cascade && (await hasChildTeams(deps.store, team._id)))
    throw new ConflictError(`team ${team.slug} has child teams; delete or move them first, or pass --cascade to delete them with it`);
  print({ deleted: await deleteTeam(deps, ACTOR, team._id, cascade) });
}

const CHANGES = { create, 'add-member': addMemberCommand, 'remove-member': removeMemberCommand, delete: deleteCommand } as const;
const isChange = (sub: string | undefined): sub is keyof typeof CHANGES => sub !== undefined && Object.hasOwn(CHANGES, sub);

export async function teamsCommand(store: Store, cfg: Config, sub: string | undefined, argv: string[]): Promise<void> {
  if (sub === 'list') return list(store, argv);
  if (sub === 'show') return show(store, argv);
  if (!isChange(sub)) throw new UsageError(`unknown command: teams ${sub ?? ''}`.trim());
  const events = cliEvents(cfg, store);
  try {
    await CHANGES[sub]({ store, events, audit: cliAudit(store) }, argv);
  } finally {
    await events.finish();
  }
}
