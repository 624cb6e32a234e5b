// Invitations in MongoDB, their claims (the single-use guard), and the
// account a sign-up creates.
import type { InviteClaimDoc, InviteDoc } from '../model/invites.js';
import type { UserDoc } from '../model/users.js';
import { hashSecret } from '../security/secrets.js';
import { insertIfAbsent, type Store } from './db.js';
import { repairUserKey, writeUserKeys } from './user-lookups.js';
import { currentDate } from '../runtime/clock.js';

export async function insertInvite(store: Store, invite: InviteDoc): Promise<void> {
  await store.invites.insertOne(invite);
}

export async function findInvite(store: Store, id: string): Promise<InviteDoc | null> {
  return id.length <= 100 ? store.invites.findOne({ _id: id }) : null;
}

/** The invitation a link's token names, or null. */
export async function findInviteByToken(store: Store, token: string): Promise<InviteDoc | null> {
  return store.invites.findOne({ tokenHash: hashSecret(token) });
}

/** Newest first, pending and past alike. */
export async function listInvites(store: Store, limit: number, offset: number): Promise<InviteDoc[]> {
  return store.invites.find({}, { sort: { createdAt: -1, _id: 1 }, skip: offset, limit }).toArray();
}

/** True for the one caller whose claim was inserted first; every other caller (a use or a revocation) gets false. */
export async function claimInvite(store: Store, inviteId: string, kind: InviteClaimDoc['kind'], holder: string): Promise<boolean> {
  return insertIfAbsent(store.inviteClaims, { _id: inviteId, kind, holder, at: currentDate() });
}

export async function inviteClaim(store: Store, inviteId: string): Promise<InviteClaimDoc | null> {
  return store.inviteClaims.findOne({ _id: inviteId });
}

/** Gives a claim back (only the holder's own). */
export async function releaseInviteClaim(store: Store, inviteId: string, holder: string): Promise<void> {
  await store.inviteClaims.deleteOne({ _id: inviteId, holder });
}

export async function markInviteUsed(store: Store, inviteId: string, userId: string, at = currentDate()): Promise<void> {
  await store.invites.updateOne({ _id: inviteId }, { $set: { usedBy: userId, usedAt: at } });
}

export async function markInviteRevoked(store: Store, inviteId: string, at = currentDate()): Promise<void> {
  await store.invites.updateOne({ _id: inviteId }, { $set: { revokedAt: at } });
}

/** Inserts a signed-up account; when a unique index refuses it, which field was taken. */
export async function insertSignedUpUser(store: Store, user: UserDoc): Promise<'email' | 'username' | null> {
  if (await insertIfAbsent(store.users, user)) {
    await writeUserKeys(store, user);
    return null;
  }
  // Which value was taken (a scan, on this refused path only); its key is repaired on the way.
  if (await repairUserKey(store, 'email', user.email)) return 'email';
  await repairUserKey(store, 'username', user.username);
  return 'username';
}
