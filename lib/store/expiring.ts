// Purging expired documents (FerretDB v1 has no TTL indexes: domain/expiring.ts).
import type { ExpiringCollection } from '../domain/expiring.js';
import type { Store } from './db.js';

/** Deletes at most `batchSize` documents of `collection` whose `expiresAt` has passed; returns how many. */
export async function purgeExpired(store: Store, collection: ExpiringCollection, batchSize: number): Promise<number> {
  const coll = store.expiring(collection);
  const expired = await coll.find({ expiresAt: { $lt: new Date() } }, { projection: { _id: 1 }, limit: batchSize }).toArray();
  if (expired.length === 0) return 0;
  const { deletedCount } = await coll.deleteMany({ _id: { $in: expired.map((d) => d._id) }, expiresAt: { $lt: new Date() } });
  return deletedCount;
}
