// Housekeeping: deletes expired documents (FerretDB has no TTL indexes).
// Started by two Temporal Schedules: the frequent pass (every
// HOUSEKEEPING_INTERVAL_MINUTES) over most expiring collections, and a daily
// pass over the large ones whose owner deletes its own documents
// (domain/housekeeping.ts). Each collection is one activity that reads it
// once and heartbeats as it goes (lib/store/expiring.ts).
import { patched, proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { HousekeepingActivities } from '../activities/housekeeping.js';
import { EXPIRING_COLLECTIONS } from '../lib/domain/expiring.js';
import { collectionsOfPass, type HousekeepingInput, type HousekeepingResult } from '../lib/domain/housekeeping.js';
import { SearchAttributes } from '../lib/temporal/search-attributes.js';

/** Versioning: runs started before the one-pass purge replay as batches over every collection. */
const ONE_PASS = 'housekeeping-one-pass';

const { purgeExpiredCollection } = proxyActivities<HousekeepingActivities>({
  // A pass over a few hundred thousand documents takes minutes on FerretDB v1; a stuck one stops heartbeating.
  startToCloseTimeout: '20 minutes',
  heartbeatTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

const { purgeExpiredBatch } = proxyActivities<HousekeepingActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

export async function housekeeping(input: HousekeepingInput): Promise<HousekeepingResult> {
  upsertSearchAttributes([{ key: SearchAttributes.state, value: 'purging' }]);
  const deleted: HousekeepingResult = {};
  if (patched(ONE_PASS)) {
    for (const collection of collectionsOfPass(input.pass)) {
      deleted[collection] = await purgeExpiredCollection({ collection, batchSize: input.batchSize, maxBatches: input.maxBatches });
    }
  } else {
    for (const collection of EXPIRING_COLLECTIONS) {
      deleted[collection] = 0;
      for (let batch = 0; batch < input.maxBatches; batch++) {
        const n = await purgeExpiredBatch({ collection, batchSize: input.batchSize });
        deleted[collection] += n;
        if (n < input.batchSize) break;
      }
    }
  }
  upsertSearchAttributes([{ key: SearchAttributes.state, value: 'done' }]);
  return deleted;
}
