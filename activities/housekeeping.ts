// Activities of the housekeeping workflow.
import type { ExpiringCollection } from '../lib/domain/expiring.js';
import type { Store } from '../lib/store/db.js';
import { purgeExpired } from '../lib/store/expiring.js';

export function createHousekeepingActivities(store: Store) {
  return {
    /** Deletes at most `batchSize` documents whose `expiresAt` has passed; returns how many. */
    async purgeExpiredBatch({ collection, batchSize }: { collection: ExpiringCollection; batchSize: number }): Promise<number> {
      return purgeExpired(store, collection, batchSize);
    },
  };
}

export type HousekeepingActivities = ReturnType<typeof createHousekeepingActivities>;
