// Changes to a team's members and groups, for every caller: the member-write
// cap (model/team-roles.ts) on every change, the last-owner rule, and the
// audit record of each change. Teams themselves: team-changes.ts; joining by
// invitation: invitations.ts.
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../model/errors.js';
import { MAX_TEAM_GROUPS, type MemberChanges, type NewGroupInput, type NewMemberInput, type TeamDoc, type TeamMemberDoc } from '../model/teams.js';
import { memberChangeAllowed, type TeamRole } from '../model/team-roles.js';
import type { Store } from '../store/db.js';
import { countOwners, dropGroupFromMembers, findMember, insertMember, removeMember, updateMember, updateTeam } from '../store/teams.js';
import { findUserByRef } from '../store/users.js';
import { teamData, teamFor, type TeamActor, type TeamDeps } from './team-changes.js';

export function checkGroups(team: TeamDoc, groups: string[]): void {
  const unknown = groups.filter((g) => !team.groups.some((t) => t.slug === g));
  if (unknown.length) throw new ValidationError([`groups: no such group in this team: ${unknown.join(', ')}`]);
}

/** The member-write cap, for every path that changes a member. */
export function checkCap(actorRoleNow: TeamRole, from: TeamRole | null, to: TeamRole | null): void {
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

/**
 * Adds a member directly: only an instance-wide actor (a site admin's
 * `site:team:write` token, the operator CLI) does; users join by accepting an
 * invitation (invitations.ts).
 */
export async function addMember(deps: TeamDeps, actor: TeamActor, teamId: string, input: NewMemberInput): Promise<TeamMemberDoc> {
  if (!actor.instanceWide) throw new ForbiddenError('members join by invitation');
  const { team, role } = await teamFor(deps.store, actor, teamId, 'manage-members');
  checkCap(role, null, input.role);
  checkGroups(team, input.groups);
  const user = await findUserByRef(deps.store, input.user);
  if (!user) throw new NotFoundError('no such user');
  if (!(await insertMember(deps.store, teamId, user._id, input.role, input.groups))) throw new ConflictError('the user is already a member of this team');
  await deps.audit.record('team.member.add', {
    actor: actor.event,
    subject: { teamId: team._id },
    data: { ...teamData(team), user_id: user._id, role: input.role, groups: input.groups },
  });
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
  await deps.audit.record('team.member.update', {
    actor: actor.event,
    subject: { teamId: team._id },
    data: { ...teamData(team), user_id: userId, from_role: member.role, ...changes },
  });
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
    await deps.audit.record('team.member.remove', {
      actor: actor.event,
      subject: { teamId: team._id },
      data: { ...teamData(team), user_id: userId, role: member.role },
    });
}

export async function addGroup(deps: TeamDeps, actor: TeamActor, teamId: string, input: NewGroupInput): Promise<TeamDoc> {
  const { team } = await teamFor(deps.store, actor, teamId, 'update');
  if (team.groups.some((g) => g.slug === input.slug)) throw new ConflictError(`the group ${input.slug} exists`);
  if (team.groups.length >= MAX_TEAM_GROUPS) throw new ValidationError([`a team has at most ${MAX_TEAM_GROUPS} groups`]);
  const groups = [...team.groups, { slug: input.slug, name: input.name }];
  await updateTeam(deps.store, teamId, { groups });
  await deps.audit.record('team.group.add', { actor: actor.event, subject: { teamId: team._id }, data: { ...teamData(team), group: input.slug } });
  return { ...team, groups };
}

export async function removeGroup(deps: TeamDeps, actor: TeamActor, teamId: string, slug: string): Promise<TeamDoc> {
  const { team } = await teamFor(deps.store, actor, teamId, 'update');
  if (!team.groups.some((g) => g.slug === slug)) throw new NotFoundError('no such group');
  const groups = team.groups.filter((g) => g.slug !== slug);
  await updateTeam(deps.store, teamId, { groups });
  await dropGroupFromMembers(deps.store, teamId, slug);
  await deps.audit.record('team.group.remove', { actor: actor.event, subject: { teamId: team._id }, data: { ...teamData(team), group: slug } });
  return { ...team, groups };
}
