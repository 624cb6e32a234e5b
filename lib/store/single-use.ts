// Single use, the one way that holds on FerretDB v1 as well as on MongoDB:
// inserting a document whose _id is the thing being used. A unique _id makes
// the second insert fail atomically. (Measured on FerretDB v1.24 with SQLite:
// conditional updates such as findOneAndUpdate({_id, consumedAt: null}) are not
// atomic — three concurrent callers often all "win" — while insertOne with a
// duplicate _id and deleteOne are.)
import { isDuplicateKeyError, type Store } from './db.js';

/** True for the first caller with this key (until it expires), false for every later one. */
export async function claimOnce(store: Store, key: string, ttlMs: number): Promise<boolean> {
  try {
    await store.expiring('replay_guards').insertOne({ _id: key, expiresAt: new Date(Date.now() + ttlMs) });
    return true;
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    // An expired guard that housekeeping has not purged yet no longer counts.
    const guard = await store.expiring('replay_guards').findOne({ _id: key });
    if (guard && guard.expiresAt <= new Date() && (await store.expiring('replay_guards').deleteOne({ _id: key })).deletedCount === 1) {
      return claimOnce(store, key, ttlMs);
    }
    return false;
  }
}
