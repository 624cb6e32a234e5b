// Every change to teams, for every caller (the team APIs, /account/teams, the
// operator CLI): the role checks of domain/team-roles.ts, the tree's limits,
// and the audit record of each change. Errors carry what the caller shows:
// NotFoundError (the team is not there for this actor), ForbiddenError (the
// actor sees the team but its role does not allow the change), ConflictError,
// ValidationError.
//
// FerretDB v1 has no transactions: a move checks for cycles before it writes,
// and two moves racing each other could still close a loop; every walk of the
// tree stops at the depth limit, so such a loop is bounded, never endless.
import { ConflictError, NotFoundError, ValidationError } from '../domain/errors.js';
import {
  MAX_TEAM_DEPTH,
  MAX_TEAM_GROUPS,
  type MemberChanges,
  type NewGroupInput,
  type NewMemberInput,
  type NewTeamInput,
  type TeamChanges,
  type TeamDoc,
  type TeamMemberDoc,
} from '../domain/teams.js';
import { may, memberChangeAllowed, type TeamAction, type TeamRole } from '../domain/team-roles.js';
import type { AdminEvent, AuditEvent, EventActor } from '../domain/webhook-events.js';
import type { UserDoc } from '../domain/users.js';
import { newId } from '../security/secrets.js';
import type { Store } from '../store/db.js';
import {
  childTeams,
  countOwners,
  deleteTeamDocs,
  dropGroupFromMembers,
  findMember,
  findTeam,
  insertMember,
  insertTeam,
  removeMember,
  updateMember,
  updateTeam,
} from '../store/teams.js';
import { findUserByEmail, findUserById, findUserByUsername } from '../store/users.js';
import { effectiveRole, lineage } from './membership.js';

export class ForbiddenError extends Error {}

/**
 * Who makes a change. A user acts with their effective role on the team; an
 * instance-wide actor (a site admin through a `site:team:*` token, the
 * operator CLI) acts as an owner of every team.
 */
export interface TeamActor {
  userId: string | null;
  instanceWide: boolean;
  event: EventActor;
}

export interface TeamDeps {
  store: Store;
  events: {
    audit(name: AuditEvent, data: Record<string, unknown>, actor: EventActor): Promise<void>;
    admin(name: AdminEvent, data: Record<string, unknown>, actor: EventActor): Promise<void>;
  };
}

export const userActor = (userId: string, event: EventActor): TeamActor => ({ userId, instanceWide: false, event });

/** The actor's role on a team: owner for an instance-wide actor. */
export async function actorRole(store: Store, actor: TeamActor, team: TeamDoc): Promise<TeamRole | null> {
  if (actor.instanceWide) return 'owner';
  return actor.userId === null ? null : effectiveRole(store, actor.userId, team);
}

/**
 * The team, when the actor may see it and take `action`: a team the actor has
 * no role on is not found (its existence is not revealed); one it sees with too
 * low a role is forbidden.
 */
export async function teamFor(store: Store, actor: TeamActor, teamId: string, action: TeamAction): Promise<{ team: TeamDoc; role: TeamRole }> {
  const team = await findTeam(store, teamId);
  const role = team ? await actorRole(store, actor, team) : null;
  if (!team || role === null) throw new NotFoundError('no such team');
  if (!may(role, action)) throw new ForbiddenError(`your role on this team (${role}) does not allow this`);
  return { team, role };
}

const teamData = (team: TeamDoc) => ({ team_id: team._id, slug: team.slug, name: team.name });

/** How many levels the tree below a team has (1: no children). */
async function subtreeHeight(store: Store, teamId: string): Promise<number> {
  let frontier = [teamId];
  let height = 0;
  while (frontier.length && height <= MAX_TEAM_DEPTH) {
    height++;
    frontier = (await childTeams(store, frontier)).map((t) => t._id);
  }
  return height;
}

/** Creates a team; the creator becomes its owner. A parent must be one the creator may add child teams to. */
export async function createTeam(deps: TeamDeps, actor: TeamActor, input: NewTeamInput, ownerId = actor.userId): Promise<TeamDoc> {
  if (ownerId === null) throw new ValidationError(['a team needs an owner']);
  if (input.parent_id !== null) {
    const { team: parent } = await teamFor(deps.store, actor, input.parent_id, 'create-child');
    if ((await lineage(deps.store, parent)).length >= MAX_TEAM_DEPTH) throw new ValidationError([`teams nest at most ${MAX_TEAM_DEPTH} levels deep`]);
  }
  const now = new Date();
  const team: TeamDoc = {
    _id: newId(),
    name: input.name,
    slug: input.slug,
    description: input.description,
    parentId: input.parent_id,
    memberGroupsEnabled: input.member_groups_enabled,
    groups: [],
    createdAt: now,
    updatedAt: now,
  };
  await insertTeam(deps.store, team);
  await insertMember(deps.store, team._id, ownerId, 'owner', []);
  await deps.events.audit('team.create', { ...teamData(team), parent_id: team.parentId, owner_id: ownerId }, actor.event);
  return team;
}

/** Checks a move of `team` under `parentId` (null: top level): the actor's right there, no cycle, the depth limit. */
async function checkMove(deps: TeamDeps, actor: TeamActor, team: TeamDoc, parentId: string | null): Promise<void> {
  if (!may(await actorRole(deps.store, actor, team), 'move')) throw new ForbiddenError('moving a team needs owner or co-owner');
  if (parentId === null) return;
  if (parentId === team._id) throw new ValidationError(['parent_id: a team cannot be its own parent']);
  const { team: parent } = await teamFor(deps.store, actor, parentId, 'create-child');
  const above = await lineage(deps.store, parent);
  if (above.some((t) => t._id === team._id)) throw new ValidationError(['parent_id: the new parent is inside this team; a team cannot be moved under itself']);
  if (above.length + (await subtreeHeight(deps.store, team._id)) > MAX_TEAM_DEPTH)
    throw new ValidationError([`teams nest at most ${MAX_TEAM_DEPTH} levels deep`]);
}

export async function changeTeam(deps: TeamDeps, actor: TeamActor, teamId: string, changes: TeamChanges): Promise<TeamDoc> {
  const { team } = await teamFor(deps.store, actor, teamId, 'update');
  if (changes.parent_id !== undefined && changes.parent_id !== team.parentId) await checkMove(deps, actor, team, changes.parent_id);
  const set: Parameters<typeof updateTeam>[2] = {};
  if (changes.name !== undefined) set.name = changes.name;
  if (changes.slug !== undefined) set.slug = changes.slug;
  if (changes.description !== undefined) set.description = changes.description;
  if (changes.parent_id !== undefined) set.parentId = changes.parent_id;
  if (changes.member_groups_enabled !== undefined) set.memberGroupsEnabled = changes.member_groups_enabled;
  if (!(await updateTeam(deps.store, teamId, set))) throw new NotFoundError('no such team');
  const updated = { ...team, ...set };
  await deps.events.audit('team.update', { ...teamData(updated), changed: Object.keys(changes) }, actor.event);
  return updated;
}

/**
 * Deletes a team. A team with child teams is refused unless `cascade`, which
 * deletes the whole subtree, deepest teams first (a crash halfway leaves a
 * smaller, still consistent tree). Returns the ids deleted.
 */
export async function deleteTeam(deps: TeamDeps, actor: TeamActor, teamId: string, cascade: boolean): Promise<string[]> {
  const { team } = await teamFor(deps.store, actor, teamId, 'delete');
  const levels: TeamDoc[][] = [[team]];
  for (let depth = 1; depth < MAX_TEAM_DEPTH; depth++) {
    const below = await childTeams(
      deps.store,
      levels[levels.length - 1]!.map((t) => t._id),
    );
    if (!below.length) break;
    if (!cascade) throw new ConflictError('the team has child teams; delete or move them first, or ask for cascade');
    levels.push(below);
  }
  const deleted: string[] = [];
  for (const level of levels.reverse()) {
    for (const t of level) {
      if (!(await deleteTeamDocs(deps.store, t._id))) continue;
      deleted.push(t._id);
      const data = { ...teamData(t), cascade_from: t._id === team._id ? null : team._id };
      await deps.events.audit('team.delete', data, actor.event);
      if (actor.instanceWide) await deps.events.admin('admin.team.delete', data, actor.event);
    }
  }
  return deleted;
}

/** An existing user named by id, email or username. */
async function findUserByRef(store: Store, ref: string): Promise<UserDoc | null> {
  return (await findUserById(store, ref)) ?? (ref.includes('@') ? await findUserByEmail(store, ref) : await findUserByUsername(store, ref));
}

function checkGroups(team: TeamDoc, groups: string[]): void {
  const unknown = groups.filter((g) => !team.groups.some((t) => t.slug === g));
  if (unknown.length) throw new ValidationError([`groups: no such group in this team: ${unknown.join(', ')}`]);
}

/** The member-write cap, for every path that changes a member. */
function checkCap(actorRoleNow: TeamRole, from: TeamRole | null, to: TeamRole | null): void {
  if (!memberChangeAllowed(actorRoleNow, from, to))
    throw new ForbiddenError(
      to !== null && !memberChangeAllowed(actorRoleNow, null, to)
        ? `your role (${actorRoleNow}) cannot give the role ${to}`
        : `your role (${actorRoleNow}) cannot change a member who is ${from}`,
    );
}

/** A team keeps at least one direct owner. */
async function checkNotLastOwner(store: Store, member: TeamMemberDoc, to: TeamRole | null): Promise<void> {
  if (member.role === 'owner' && to !== 'owner' && (await countOwners(store, member.teamId)) <= 1)
    throw new ConflictError('the team would have no owner left; make another member owner first');
}

export async function addMember(deps: TeamDeps, actor: TeamActor, teamId: string, input: NewMemberInput): Promise<TeamMemberDoc> {
  const { team, role } = await teamFor(deps.store, actor, teamId, 'manage-members');
  checkCap(role, null, input.role);
  checkGroups(team, input.groups);
  const user = await findUserByRef(deps.store, input.user);
  if (!user) throw new NotFoundError('no such user');
  if (!(await insertMember(deps.store, teamId, user._id, input.role, input.groups))) throw new ConflictError('the user is already a member of this team');
  await deps.events.audit('team.member.add', { ...teamData(team), user_id: user._id, role: input.role, groups: input.groups }, actor.event);
  return (await findMember(deps.store, teamId, user._id))!;
}

export async function changeMember(deps: TeamDeps, actor: TeamActor, teamId: string, userId: string, changes: MemberChanges): Promise<TeamMemberDoc> {
  const { team, role } = await teamFor(deps.store, actor, teamId, 'manage-members');
  const member = await findMember(deps.store, teamId, userId);
  if (!member) throw new NotFoundError('no such member');
  if (changes.role !== undefined && changes.role !== member.role) {
    checkCap(role, member.role, changes.role);
    await checkNotLastOwner(deps.store, member, changes.role);
  } else checkCap(role, member.role, null);
  if (changes.groups !== undefined) checkGroups(team, changes.groups);
  await updateMember(deps.store, teamId, userId, changes);
  await deps.events.audit('team.member.update', { ...teamData(team), user_id: userId, from_role: member.role, ...changes }, actor.event);
  return { ...member, ...changes };
}

/** Removes a member; anyone may leave a team (unless they are its last owner). */
export async function removeTeamMember(deps: TeamDeps, actor: TeamActor, teamId: string, userId: string): Promise<void> {
  const leaving = actor.userId === userId && !actor.instanceWide;
  const { team, role } = await teamFor(deps.store, actor, teamId, leaving ? 'read' : 'manage-members');
  const member = await findMember(deps.store, teamId, userId);
  if (!member) throw new NotFoundError('no such member');
  if (!leaving) checkCap(role, member.role, null);
  await checkNotLastOwner(deps.store, member, null);
  if (await removeMember(deps.store, teamId, userId))
    await deps.events.audit('team.member.remove', { ...teamData(team), user_id: userId, role: member.role }, actor.event);
}

export async function addGroup(deps: TeamDeps, actor: TeamActor, teamId: string, input: NewGroupInput): Promise<TeamDoc> {
  const { team } = await teamFor(deps.store, actor, teamId, 'update');
  if (team.groups.some((g) => g.slug === input.slug)) throw new ConflictError(`the group ${input.slug} exists`);
  if (team.groups.length >= MAX_TEAM_GROUPS) throw new ValidationError([`a team has at most ${MAX_TEAM_GROUPS} groups`]);
  const groups = [...team.groups, { slug: input.slug, name: input.name }];
  await updateTeam(deps.store, teamId, { groups });
  await deps.events.audit('team.group.add', { ...teamData(team), group: input.slug }, actor.event);
  return { ...team, groups };
}

export async function removeGroup(deps: TeamDeps, actor: TeamActor, teamId: string, slug: string): Promise<TeamDoc> {
  const { team } = await teamFor(deps.store, actor, teamId, 'update');
  if (!team.groups.some((g) => g.slug === slug)) throw new NotFoundError('no such group');
  const groups = team.groups.filter((g) => g.slug !== slug);
  await updateTeam(deps.store, teamId, { groups });
  await dropGroupFromMembers(deps.store, teamId, slug);
  await deps.events.audit('team.group.remove', { ...teamData(team), group: slug }, actor.event);
  return { ...team, groups };
}
