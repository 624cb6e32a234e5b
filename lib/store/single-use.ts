// Single use, the one way that holds on FerretDB v1 as well as on MongoDB:
// inserting a document whose _id is the thing being used. A unique _id makes
// the second insert fail atomically. (Measured on FerretDB v1.24 with SQLite:
// conditional updates such as findOneAndUpdate({_id, consumedAt: null}) are not
// atomic — three concurrent callers often all "win" — while insertOne with a
// duplicate _id and deleteOne are.) The same collection, `replay_guards`, also
// remembers what was handed out to be used later (rememberIssued, wasIssued).
import { isDuplicateKeyError, type Store } from './db.js';
import { currentDate, currentTimeMs } from '../runtime/clock.js';

/** True for the first caller with this key (until it expires), false for every later one. */
export async function claimOnce(store: Store, key: string, ttlMs: number): Promise<boolean> {
  try {
    await store.replayGuards.insertOne({ _id: key, expiresAt: new Date(currentTimeMs() + ttlMs) });
    return true;
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    // An expired guard that housekeeping has not purged yet no longer counts.
    const guard = await store.replayGuards.findOne({ _id: key });
    if (guard && guard.expiresAt <= currentDate() && (await store.replayGuards.deleteOne({ _id: key })).deletedCount === 1) {
      return claimOnce(store, key, ttlMs);
    }
    return false;
  }
}

/** Remembers that `key` was handed out, for `ttlMs` (a fresh random key: no collision expected). */
export async function rememberIssued(store: Store, key: string, ttlMs: number): Promise<void> {
  await store.replayGuards.insertOne({ _id: key, expiresAt: new Date(currentTimeMs() + ttlMs) });
}

/** Whether `key` was handed out and has not expired. */
export async function wasIssued(store: Store, key: string): Promise<boolean> {
  const mark = await store.replayGuards.findOne({ _id: key });
  return mark !== null && mark.expiresAt > currentDate();
}
