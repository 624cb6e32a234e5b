// Passkeys in MongoDB (the model: model/passkeys.ts). A passkey's `_id` is
// its credential id (the sign-in ceremony's lookup).
//
// A user's passkeys are found by `userId`, which FerretDB v1 answers by
// reading every passkey (it looks up by index only for `_id`). So a user who
// has passkeys also has a holder document (`passkey_holders`, `_id` the user
// id): a user without one has none, in one `_id` lookup, and only users with
// passkeys pay for the scan (holders.ts: the order of writes that keeps it right).
import type { PasskeyDoc } from '../model/passkeys.js';
import type { Store } from './db.js';
import { isHolder as holderThere, markHolder, settleHolder } from './holders.js';
import { currentDate } from '../runtime/clock.js';

const isHolder = (store: Store, userId: string) => holderThere(store.passkeyHolders, userId);

export async function listPasskeys(store: Store, userId: string): Promise<PasskeyDoc[]> {
  if (!(await isHolder(store, userId))) return [];
  return store.passkeys.find({ userId }, { sort: { createdAt: 1 } }).toArray();
}

/** Whether a passkey of the user is stored (a scan: only for holders, or to settle one). */
const anyPasskey = async (store: Store, userId: string) => (await store.passkeys.countDocuments({ userId }, { limit: 1 })) > 0;

/** Whether the user has at least one passkey (a second factor, and a way to sign in). */
export async function hasPasskey(store: Store, userId: string): Promise<boolean> {
  return (await isHolder(store, userId)) && (await anyPasskey(store, userId));
}

export function findPasskey(store: Store, credentialId: string): Promise<PasskeyDoc | null> {
  return store.passkeys.findOne({ _id: credentialId });
}

export async function insertPasskey(store: Store, doc: PasskeyDoc): Promise<void> {
  await store.passkeys.insertOne(doc);
  await markHolder(store.passkeyHolders, { _id: doc.userId });
}

/** Records a sign-in with the passkey: its new signature counter and the time. */
export async function recordPasskeyUse(store: Store, credentialId: string, counter: number): Promise<void> {
  await store.passkeys.updateOne({ _id: credentialId }, { $set: { counter, lastUsedAt: currentDate() } });
}

/** After passkeys of the user were removed: the holder goes, and comes back if any remain. */
export async function settlePasskeyHolder(store: Store, userId: string): Promise<void> {
  await settleHolder(store.passkeyHolders, { _id: userId }, () => anyPasskey(store, userId));
}

/** Deletes every passkey of the user; how many. */
export async function deleteUserPasskeys(store: Store, userId: string): Promise<number> {
  if (!(await isHolder(store, userId))) return 0;
  const { deletedCount } = await store.passkeys.deleteMany({ userId });
  await settlePasskeyHolder(store, userId);
  return deletedCount;
}

// A passkey is removed through sign-in-ways.ts, which refuses removing the last way to sign in.
