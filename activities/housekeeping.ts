// Activities of the housekeeping workflow.
import { Context } from '@temporalio/activity';
import type { PurgeRequest } from '../lib/model/housekeeping.js';
import type { Store } from '../lib/store/db.js';
import { purgeExpired } from '../lib/store/expiring.js';

export function createHousekeepingActivities(store: Store) {
  return {
    /**
     * One pass over a collection: deletes at most `batchSize × maxBatches`
     * expired documents; returns how many. Heartbeats its progress, so a pass
     * over a large collection runs as long as it needs while a stuck one is
     * noticed.
     */
    async purgeExpiredCollection(request: PurgeRequest): Promise<number> {
      const context = Context.current();
      return purgeExpired(store, request.collection, request, (p) => context.heartbeat(p));
    },
  };
}

export type HousekeepingActivities = ReturnType<typeof createHousekeepingActivities>;
