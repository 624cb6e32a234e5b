// Housekeeping: deletes expired documents (FerretDB has no TTL indexes).
// Started by two Temporal Schedules: the frequent pass (every
// HOUSEKEEPING_INTERVAL_MINUTES) over most expiring collections, and a daily
// pass over the large ones whose owner deletes its own documents
// (model/housekeeping.ts). Each collection is one activity that reads it
// once and heartbeats as it goes (lib/store/expiring.ts).
import { proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { HousekeepingActivities } from '../activities/housekeeping.js';
import { collectionsOfPass, type HousekeepingInput, type HousekeepingResult } from '../lib/model/housekeeping.js';
import { SearchAttributes } from '../lib/temporal/search-attributes.js';

const { purgeExpiredCollection } = proxyActivities<HousekeepingActivities>({
  // A pass over a few hundred thousand documents takes minutes on FerretDB v1; a stuck one stops heartbeating.
  startToCloseTimeout: '20 minutes',
  heartbeatTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

export async function housekeeping(input: HousekeepingInput): Promise<HousekeepingResult> {
  upsertSearchAttributes([{ key: SearchAttributes.state, value: 'purging' }]);
  const deleted: HousekeepingResult = {};
  for (const collection of collectionsOfPass(input.pass)) {
    deleted[collection] = await purgeExpiredCollection({ collection, batchSize: input.batchSize, maxBatches: input.maxBatches });
  }
  upsertSearchAttributes([{ key: SearchAttributes.state, value: 'done' }]);
  return deleted;
}
