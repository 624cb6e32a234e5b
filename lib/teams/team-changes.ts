// Every change to teams (members and groups: member-changes.ts), for every caller (the team APIs, /account/teams, the
// operator CLI): the role checks of model/team-roles.ts, the tree's limits,
// and the audit record of each change. Errors carry what the caller shows:
// NotFoundError (the team is not there for this actor), ForbiddenError (the
// actor sees the team but its role does not allow the change), ConflictError,
// ValidationError.
//
// FerretDB v1 has no transactions: a move checks for cycles before it writes,
// and two moves racing each other could still close a loop; every walk of the
// tree stops at the depth limit, so such a loop is bounded, never endless.
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../model/errors.js';
import { MAX_TEAM_DEPTH, type NewTeamInput, type TeamChanges, type TeamDoc } from '../model/teams.js';
import { may, moveAllowed, type TeamAction, type TeamRole } from '../model/team-roles.js';
import type { AdminEvent, EventActor } from '../model/webhook-events.js';
import { newId } from '../security/secrets.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { Store } from '../store/db.js';
import { childTeams, deleteTeamDocs, findTeam, insertMember, insertTeam, updateTeam } from '../store/teams.js';
import { effectiveRole, lineage } from './membership.js';
import { currentDate } from '../runtime/clock.js';

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
    admin(name: AdminEvent, data: Record<string, unknown>, actor: EventActor): Promise<void>;
  };
  audit: Pick<AuditTrail, 'record'>;
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

export const teamData = (team: TeamDoc) => ({ team_id: team._id, slug: team.slug, name: team.name });

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
  const now = currentDate();
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
  await deps.audit.record('team.create', {
    actor: actor.event,
    subject: { teamId: team._id },
    data: { ...teamData(team), parent_id: team.parentId, owner_id: ownerId },
  });
  return team;
}

/** The actor's role on a team's current parent; 'top-level' when it has none (or it is gone). */
async function roleAtParent(store: Store, actor: TeamActor, team: TeamDoc): Promise<TeamRole | null | 'top-level'> {
  const parent = team.parentId === null ? null : await findTeam(store, team.parentId);
  return parent ? actorRole(store, actor, parent) : 'top-level';
}

/** Whether the actor may move the team somewhere (the team page offers the parent select only then). */
export async function mayMoveTeam(store: Store, actor: TeamActor, team: TeamDoc): Promise<boolean> {
  return moveAllowed({ team: await actorRole(store, actor, team), currentParent: await roleAtParent(store, actor, team), newParent: 'top-level' });
}

const MOVE_REFUSAL = 'moving a team needs owner on it and on its current parent team, and admin or above at the new parent';

/** Checks a move of `team` under `parentId` (null: top level): the move rule (model/team-roles.ts), no cycle, the depth limit. */
async function checkMove(deps: TeamDeps, actor: TeamActor, team: TeamDoc, parentId: string | null): Promise<void> {
  if (parentId === team._id) throw new ValidationError(['parent_id: a team cannot be its own parent']);
  const parent = parentId === null ? null : await teamFor(deps.store, actor, parentId, 'read');
  const roles = {
    team: await actorRole(deps.store, actor, team),
    currentParent: await roleAtParent(deps.store, actor, team),
    newParent: parent ? parent.role : ('top-level' as const),
  };
  if (!moveAllowed(roles)) throw new ForbiddenError(MOVE_REFUSAL);
  if (parent === null) return;
  const above = await lineage(deps.store, parent.team);
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
  await deps.audit.record('team.update', { actor: actor.event, subject: { teamId: team._id }, data: { ...teamData(updated), changed: Object.keys(changes) } });
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
      await deps.audit.record('team.delete', { actor: actor.event, subject: { teamId: t._id }, data });
      if (actor.instanceWide) await deps.events.admin('admin.team.delete', data, actor.event);
    }
  }
  return deleted;
}
