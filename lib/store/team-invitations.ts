// Pending team invitations in MongoDB (the model: model/team-invitations.ts).
// One per team and reference, by the unique `slot`; accepting, declining and
// revoking each delete the invitation by `_id`, and only the delete that
// removed it goes on. Expired ones are deleted when a listing meets them
// (there are few, and nothing else reads them).
import { isLive, type TeamInvitationDoc } from '../model/team-invitations.js';
import { insertIfAbsent, type Store } from './db.js';
import { currentDate } from '../runtime/clock.js';

/**
 * Stores an invitation; false when its slot holds a live one. An expired
 * holder of the slot is removed first, so a lapsed invitation can be sent again.
 */
export async function insertInvitation(store: Store, invitation: TeamInvitationDoc): Promise<boolean> {
  if (await insertIfAbsent(store.teamInvitations, invitation)) return true;
  const holder = await store.teamInvitations.findOne({ slot: invitation.slot });
  if (!holder || isLive(holder)) return false;
  await store.teamInvitations.deleteOne({ _id: holder._id });
  return insertIfAbsent(store.teamInvitations, invitation);
}

/** A live invitation by id. */
export async function findInvitation(store: Store, id: string): Promise<TeamInvitationDoc | null> {
  const found = await store.teamInvitations.findOne({ _id: id });
  return found && isLive(found) ? found : null;
}

/** Deletes an invitation; true for the one call that removed it. */
export async function deleteInvitation(store: Store, id: string): Promise<boolean> {
  return (await store.teamInvitations.deleteOne({ _id: id })).deletedCount === 1;
}

async function liveOnly(store: Store, found: TeamInvitationDoc[]): Promise<TeamInvitationDoc[]> {
  const now = currentDate();
  const expired = found.filter((i) => !isLive(i, now)).map((i) => i._id);
  if (expired.length) await store.teamInvitations.deleteMany({ _id: { $in: expired } });
  return found.filter((i) => isLive(i, now));
}

/** A team's live invitations, oldest first. */
export async function invitationsOfTeam(store: Store, teamId: string, limit: number): Promise<TeamInvitationDoc[]> {
  return liveOnly(store, await store.teamInvitations.find({ teamId }).sort({ createdAt: 1, _id: 1 }).limit(limit).toArray());
}

/** The live invitations a user may accept, newest first. */
export async function invitationsForUser(store: Store, userId: string, limit: number): Promise<TeamInvitationDoc[]> {
  return liveOnly(store, await store.teamInvitations.find({ userId }).sort({ createdAt: -1, _id: 1 }).limit(limit).toArray());
}

/** Gone with their team. */
export async function deleteInvitationsOfTeam(store: Store, teamId: string): Promise<void> {
  await store.teamInvitations.deleteMany({ teamId });
}

/** Gone with the account they were sent to (account deletion). */
export async function deleteInvitationsForUser(store: Store, userId: string): Promise<number> {
  return (await store.teamInvitations.deleteMany({ userId })).deletedCount;
}
