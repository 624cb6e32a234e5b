// Activities of the housekeeping workflow.
import type { ExpiringCollection } from '../lib/domain/expiring.js';
import type { Store } from '../lib/store/db.js';

export function createHousekeepingActivities(store: Store) {
  return {
    /** Deletes at most `batchSize` documents whose `expiresAt` has passed; returns how many. */
    async purgeExpiredBatch({ collection, batchSize }: { collection: ExpiringCollection; batchSize: number }): Promise<number> {
      const coll = store.expiring(collection);
      const expired = await coll
        .find({ expiresAt: { $lt: new Date() } }, { projection: { _id: 1 }, limit: batchSize })
        .toArray();
      if (expired.length === 0) return 0;
      const { deletedCount } = await coll.deleteMany({ _id: { $in: expired.map((d) => d._id) }, expiresAt: { $lt: new Date() } });
      return deletedCount;
    },
  };
}

export type HousekeepingActivities = ReturnType<typeof createHousekeepingActivities>;
