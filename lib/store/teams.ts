// Teams and team members in MongoDB (the model: model/teams.ts). A team's
// slug and a (team, user) membership are unique by index and _id, so two
// concurrent creations cannot both win.
import { memberId, type TeamDoc, type TeamMemberDoc } from '../model/teams.js';
import type { TeamRole } from '../model/team-roles.js';
import { insertIfAbsent, isDuplicateKeyError, type Store } from './db.js';
import { ConflictError } from '../model/errors.js';
import { deleteInvitationsForUser, deleteInvitationsOfTeam } from './team-invitations.js';
import { currentDate } from '../runtime/clock.js';

export async function insertTeam(store: Store, team: TeamDoc): Promise<void> {
  try {
    await store.teams.insertOne(team);
  } catch (err) {
    if (isDuplicateKeyError(err)) throw new ConflictError(`the slug ${team.slug} is taken`);
    throw err;
  }
}

export function findTeam(store: Store, id: string): Promise<TeamDoc | null> {
  return store.teams.findOne({ _id: id });
}

export function findTeamBySlug(store: Store, slug: string): Promise<TeamDoc | null> {
  return store.teams.findOne({ slug });
}

export function findTeams(store: Store, ids: string[]): Promise<TeamDoc[]> {
  return ids.length ? store.teams.find({ _id: { $in: ids } }).toArray() : Promise.resolve([]);
}

/** Every team on the instance, by slug (site scopes, the operator CLI), a page at a time. */
export function listAllTeams(store: Store, limit: number, skip = 0): Promise<TeamDoc[]> {
  return store.teams.find({}).sort({ slug: 1 }).skip(skip).limit(limit).toArray();
}

/** The direct children of any of these teams. */
export function childTeams(store: Store, parentIds: string[]): Promise<TeamDoc[]> {
  return parentIds.length ? store.teams.find({ parentId: { $in: parentIds } }).toArray() : Promise.resolve([]);
}

export async function hasChildTeams(store: Store, teamId: string): Promise<boolean> {
  return (await store.teams.findOne({ parentId: teamId }, { projection: { _id: 1 } })) !== null;
}

/** Changes a team's settings; false when it is gone. A slug another team holds is a ConflictError. */
export async function updateTeam(
  store: Store,
  id: string,
  changes: Partial<Pick<TeamDoc, 'name' | 'slug' | 'description' | 'parentId' | 'memberGroupsEnabled' | 'groups'>>,
): Promise<boolean> {
  try {
    const result = await store.teams.updateOne({ _id: id }, { $set: { ...changes, updatedAt: currentDate() } });
    return result.matchedCount === 1;
  } catch (err) {
    if (isDuplicateKeyError(err)) throw new ConflictError(`the slug ${changes.slug ?? ''} is taken`);
    throw err;
  }
}

/** Deletes a team, its memberships and its invitations (the caller deletes child teams first). */
export async function deleteTeamDocs(store: Store, id: string): Promise<boolean> {
  await store.teamMembers.deleteMany({ teamId: id });
  await deleteInvitationsOfTeam(store, id);
  return (await store.teams.deleteOne({ _id: id })).deletedCount === 1;
}

/** Adds a membership; false when the user already belongs to the team (a unique insert). */
export function insertMember(store: Store, teamId: string, userId: string, role: TeamRole, groups: string[]): Promise<boolean> {
  const now = currentDate();
  return insertIfAbsent(store.teamMembers, { _id: memberId(teamId, userId), teamId, userId, role, groups, addedAt: now, updatedAt: now });
}

export function findMember(store: Store, teamId: string, userId: string): Promise<TeamMemberDoc | null> {
  return store.teamMembers.findOne({ _id: memberId(teamId, userId) });
}

export function membersOf(store: Store, teamId: string, limit = 10_000): Promise<TeamMemberDoc[]> {
  return store.teamMembers.find({ teamId }).sort({ addedAt: 1, _id: 1 }).limit(limit).toArray();
}

/** A user's direct memberships, on any team or only on these teams. */
export function membershipsOf(store: Store, userId: string, teamIds?: string[]): Promise<TeamMemberDoc[]> {
  return store.teamMembers.find(teamIds ? { userId, teamId: { $in: teamIds } } : { userId }).toArray();
}

export async function updateMember(store: Store, teamId: string, userId: string, changes: { role?: TeamRole; groups?: string[] }): Promise<boolean> {
  const result = await store.teamMembers.updateOne({ _id: memberId(teamId, userId) }, { $set: { ...changes, updatedAt: currentDate() } });
  return result.matchedCount === 1;
}

export async function removeMember(store: Store, teamId: string, userId: string): Promise<boolean> {
  return (await store.teamMembers.deleteOne({ _id: memberId(teamId, userId) })).deletedCount === 1;
}

/** Takes a group slug off every member of the team that holds it. */
export async function dropGroupFromMembers(store: Store, teamId: string, slug: string): Promise<void> {
  await store.teamMembers.updateMany({ teamId, groups: slug }, { $pull: { groups: slug } });
}

export function countOwners(store: Store, teamId: string): Promise<number> {
  return store.teamMembers.countDocuments({ teamId, role: 'owner' });
}

/** Every membership a user holds, and the invitations sent to them, gone with the user (account deletion); the count of memberships. */
export async function deleteMembershipsOf(store: Store, userId: string): Promise<number> {
  await deleteInvitationsForUser(store, userId);
  return (await store.teamMembers.deleteMany({ userId })).deletedCount;
}
