// Purging expired documents (FerretDB v1 has no TTL indexes: model/expiring.ts).
//
// FerretDB v1 pushes only a lone `_id` equality down to SQLite: a filter on
// `expiresAt`, or `_id: {$in}`, decodes every document of the collection, so
// finding and deleting a batch that way cost two whole scans per batch. The
// purge instead reads the collection once, in one cursor with no filter (only
// `expiresAt` projected), and deletes each expired document by `_id` alone, a
// few at a time, until the cursor ends or the run's share is deleted.
import type { Collection } from 'mongodb';
import type { ExpiringCollection, ExpiringDoc } from '../model/expiring.js';
import { insertIfAbsent, type Store } from './db.js';
import { inChunks } from './in-chunks.js';
import { currentDate } from '../runtime/clock.js';

/** Deletes in flight at once: more left FerretDB v1 (SQLite) queuing them all. */
const PARALLEL_DELETES = 8;
/** Documents read between two progress reports when nothing is deleted. */
const READS_PER_REPORT = 1000;

export interface PurgeProgress {
  read: number;
  deleted: number;
}

/**
 * Deletes the expired documents of `collection` in one pass, at most
 * `batchSize × maxBatches` of them; returns how many. `progress` is called
 * after each batch and every thousand documents read (the activity heartbeats).
 */
export async function purgeExpired(
  store: Store,
  collection: ExpiringCollection,
  { batchSize, maxBatches }: { batchSize: number; maxBatches: number },
  progress: (p: PurgeProgress) => void | Promise<void> = () => {},
): Promise<number> {
  const coll = store.expiring(collection);
  const now = currentDate();
  const done: PurgeProgress = { read: 0, deleted: 0 };
  let batch: string[] = [];
  let batches = 0;
  const flush = async () => {
    done.deleted += await deleteExpired(coll, batch);
    batch = [];
    batches++;
    await progress(done);
  };
  const cursor = coll.find({}, { projection: { expiresAt: 1 } });
  try {
    for await (const doc of cursor) {
      if (++done.read % READS_PER_REPORT === 0) await progress(done);
      if (!(doc.expiresAt < now)) continue;
      batch.push(doc._id);
      if (batch.length === batchSize) {
        await flush();
        if (batches === maxBatches) return done.deleted;
      }
    }
  } finally {
    await cursor.close();
  }
  if (batch.length > 0) await flush();
  return done.deleted;
}

/** Deletes each document by `_id`; returns how many expired ones went. */
async function deleteExpired(coll: Collection<ExpiringDoc>, ids: string[]): Promise<number> {
  let deleted = 0;
  for (const doc of await inChunks(ids, PARALLEL_DELETES, (_id) => coll.findOneAndDelete({ _id }))) {
    if (!doc) continue;
    // Written again under the same `_id` since it was read (model/expiring.ts): it goes back,
    // unless something was written there meanwhile, which then stands.
    if (doc.expiresAt > currentDate()) await insertIfAbsent(coll, doc);
    else deleted++;
  }
  return deleted;
}
