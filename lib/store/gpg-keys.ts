// The users' GPG public keys in MongoDB (the model: model/gpg-keys.ts). One
// document per (user, fingerprint), enforced by a unique index: the same
// public key may belong to several users, once each.
import { ConflictError } from '../model/errors.js';
import { MAX_GPG_KEYS_PER_USER, newGpgKey, type GpgKeyDoc, type ParsedGpgKey } from '../model/gpg-keys.js';
import { insertIfAbsent, type Store } from './db.js';

/** The user's keys, oldest first (what the pages, the API and the claims list). */
export async function listGpgKeys(store: Store, userId: string): Promise<GpgKeyDoc[]> {
  return store.gpgKeys.find({ userId }, { sort: { addedAt: 1, _id: 1 }, limit: MAX_GPG_KEYS_PER_USER }).toArray();
}

/** One of the user's keys; null for an unknown id or another user's key. */
export async function findGpgKey(store: Store, userId: string, id: string): Promise<GpgKeyDoc | null> {
  // By `_id` alone (FerretDB v1 scans for any other filter), then the owner.
  const doc = await store.gpgKeys.findOne({ _id: id });
  return doc?.userId === userId ? doc : null;
}

/**
 * Adds a key for the user; a ConflictError when they already have it or have
 * as many as allowed. The cap holds under parallel adds without transactions:
 * a key is inserted first, then counted, and withdrawn when the count is over
 * the cap. Once no add is running the user has at most the cap: the last kept
 * key's count saw every key kept before it. Racing adds at the cap may all be
 * refused, never all kept.
 */
export async function addGpgKey(store: Store, userId: string, parsed: ParsedGpgKey): Promise<GpgKeyDoc> {
  const full = () => new ConflictError(`you already have ${MAX_GPG_KEYS_PER_USER} GPG keys: delete one first`);
  // Refused without a write when the cap is plainly reached.
  if ((await store.gpgKeys.countDocuments({ userId })) >= MAX_GPG_KEYS_PER_USER) throw full();
  const doc = newGpgKey(userId, parsed);
  if (!(await insertIfAbsent(store.gpgKeys, doc))) throw new ConflictError(`you have already added the key ${parsed.fingerprint}`);
  if ((await store.gpgKeys.countDocuments({ userId })) > MAX_GPG_KEYS_PER_USER) {
    await store.gpgKeys.deleteOne({ _id: doc._id });
    throw full();
  }
  return doc;
}

/** Deletes one of the user's keys; false when they have none with that id. */
export async function deleteGpgKey(store: Store, userId: string, id: string): Promise<boolean> {
  return (await store.gpgKeys.deleteOne({ _id: id, userId })).deletedCount === 1;
}
