// A user's ways to sign in: a usable password, a passkey, a linked social
// account. Removing a passkey or unlinking an account is refused when it is
// the user's last way.
//
// FerretDB v1 has no transactions, so "check, then delete" lets two parallel
// removals of the last two ways both pass the check. Instead each removal
// deletes first (the caller whose delete removed the document owns it), then
// checks that a way remains, and puts its document back when none does.
//
// Why a way remains once no removal is running (given one did before): take
// the latest check that saw a way w and kept its removal. w was present at
// that check; if w is gone, some removal deleted it afterwards and so checked
// later still, found nothing (that check was the latest to keep its removal)
// and restored w; any later deletion of w is again followed by a later check
// that restores it. Adding ways (a password, a passkey, a link) only helps.
import type { Collection, Filter } from 'mongodb';
import { isDuplicateKeyError, type Store } from './db.js';
import { hasPasskey, settlePasskeyHolder } from './passkeys.js';
import { hasUsablePassword, NO_PASSWORD } from './passwordless-users.js';
import { findUserById } from './users.js';
import { currentDate } from '../runtime/clock.js';

export type WayRemoval = 'removed' | 'not_found' | 'last_way';

/** Whether the user can still sign in: a usable password, a passkey or a linked social account (read now). */
export async function hasSignInWay(store: Store, userId: string): Promise<boolean> {
  const user = await findUserById(store, userId);
  if (user && hasUsablePassword(user)) return true;
  if (await hasPasskey(store, userId)) return true;
  return (await store.socialAccounts.countDocuments({ userId }, { limit: 1 })) > 0;
}

/**
 * The user's document, deleted; null when absent, another user's, or when a
 * parallel request deleted it first. (Read, then delete: only the caller whose
 * deleteOne removed it gets it. FerretDB v1's findOneAndDelete is not known to
 * be atomic. Both filters are `_id` alone, which FerretDB v1 looks up by index;
 * an `_id` is never reused for another user's document.)
 */
async function takeOwn<T extends { _id: string; userId: string }>(collection: Collection<T>, id: string, userId: string): Promise<T | null> {
  const filter = { _id: id } as Filter<T>;
  const doc = (await collection.findOne(filter)) as T | null;
  if (!doc || doc.userId !== userId) return null;
  return (await collection.deleteOne(filter)).deletedCount === 1 ? doc : null;
}

/** Deletes the document, keeps the deletion when a way to sign in remains, else restores it. */
async function removeUnlessLast<T extends { _id: string; userId: string }>(
  store: Store,
  userId: string,
  remove: () => Promise<T | null>,
  restore: (doc: T) => Promise<unknown>,
): Promise<WayRemoval> {
  const removed = await remove();
  if (!removed) return 'not_found';
  if (await hasSignInWay(store, userId)) return 'removed';
  try {
    await restore(removed);
  } catch (err) {
    // Only a social account can collide: its upstream identity was linked
    // elsewhere in the instant it was gone, so it is no longer this user's.
    if (!isDuplicateKeyError(err)) throw err;
  }
  return 'last_way';
}

/** Unlinks one of the user's social accounts unless it is their last way to sign in (another user's id: not_found). */
export function removeSocialAccount(store: Store, userId: string, accountId: string): Promise<WayRemoval> {
  return removeUnlessLast(
    store,
    userId,
    () => takeOwn(store.socialAccounts, accountId, userId),
    (doc) => store.socialAccounts.insertOne(doc),
  );
}

/** Deletes one of the user's passkeys unless it is their last way to sign in (another user's id: not_found). */
export function removePasskey(store: Store, userId: string, credentialId: string): Promise<WayRemoval> {
  return removeUnlessLast(
    store,
    userId,
    () => takeOwn(store.passkeys, credentialId, userId),
    (doc) => store.passkeys.insertOne(doc),
  ).then(async (result) => {
    if (result === 'removed') await settlePasskeyHolder(store, userId);
    return result;
  });
}

/**
 * Gives a passwordless account its first password; false when it has one
 * already (a password set meanwhile is not overwritten without the current
 * one). Two parallel first settings by the same signed-in user may both
 * pass on FerretDB v1: one of the two passwords stays, which is the user's.
 */
export async function setFirstPassword(store: Store, userId: string, passwordHash: string): Promise<boolean> {
  const result = await store.users.updateOne({ _id: userId, passwordHash: NO_PASSWORD }, { $set: { passwordHash, updatedAt: currentDate() } });
  return result.matchedCount === 1;
}
