// Housekeeping: deletes expired documents (FerretDB has no TTL indexes).
// Started by the `housekeeping` Temporal Schedule; each run works through the
// expiring collections in bounded batches so that no single activity runs long.
import { proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { HousekeepingActivities } from '../activities/housekeeping.js';
import { EXPIRING_COLLECTIONS } from '../lib/domain/expiring.js';
import type { HousekeepingInput, HousekeepingResult } from '../lib/domain/housekeeping.js';
import { SearchAttributes } from '../lib/temporal/search-attributes.js';

const { purgeExpiredBatch } = proxyActivities<HousekeepingActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

export async function housekeeping({ batchSize, maxBatches }: HousekeepingInput): Promise<HousekeepingResult> {
  upsertSearchAttributes([{ key: SearchAttributes.state, value: 'purging' }]);
  const deleted: HousekeepingResult = {};
  for (const collection of EXPIRING_COLLECTIONS) {
    deleted[collection] = 0;
    for (let batch = 0; batch < maxBatches; batch++) {
      const n = await purgeExpiredBatch({ collection, batchSize });
      deleted[collection] += n;
      if (n < batchSize) break;
    }
  }
  upsertSearchAttributes([{ key: SearchAttributes.state, value: 'done' }]);
  return deleted;
}
