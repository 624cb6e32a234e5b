// Housekeeping: one purge activity per collection of the run's pass (each
// reads its collection once, bounded by batchSize × maxBatches); the frequent
// pass leaves refresh_tokens to the daily one; a run without a pass (a schedule
// from before the daily pass, a manual run) purges every collection.
import { Context } from '@temporalio/activity';
import { EXPIRING_COLLECTIONS } from '../../../lib/model/expiring.js';
import { housekeeping } from '../../../workflows/housekeeping.js';
import { flowState, startWorkflowWorker, type WorkflowWorker, recordHistory } from '../../support/workflow-env.js';

let w: WorkflowWorker;
/** Expired documents per collection, per run (workflow id). */
const expired = new Map<string, Map<string, number>>();

beforeAll(async () => {
  w = await startWorkflowWorker('housekeeping', {
    async purgeExpiredCollection({ collection, batchSize, maxBatches }: { collection: string; batchSize: number; maxBatches: number }) {
      const left = expired.get(Context.current().info.workflowExecution!.workflowId)!;
      const n = Math.min(left.get(collection) ?? 0, batchSize * maxBatches);
      left.set(collection, (left.get(collection) ?? 0) - n);
      return n;
    },
  });
});
afterAll(() => w?.stop());

const seed = (id: string) =>
  expired.set(
    id,
    new Map([
      ['sessions', 7],
      ['refresh_tokens', 12],
      ['device_codes', 3],
    ]),
  );
const purged = (id: string) => w.callsOf(id).map((c) => [c.name, c.arg]);

it('the frequent pass purges every collection but refresh_tokens, each in one bounded activity, and reports what it deleted', async () => {
  seed('housekeeping-frequent');
  const handle = await w.start(housekeeping, { batchSize: 3, maxBatches: 2, pass: 'frequent' }, 'housekeeping-frequent');
  const frequent = EXPIRING_COLLECTIONS.filter((c) => c !== 'refresh_tokens');
  // sessions: 6 of 7 (batchSize × maxBatches; the rest is the next run's); device_codes: all 3.
  const deleted: Record<string, number> = { sessions: 6, device_codes: 3 };
  expect(await handle.result()).toEqual(Object.fromEntries(frequent.map((c) => [c, deleted[c] ?? 0])));
  expect(purged(handle.workflowId)).toEqual(frequent.map((collection) => ['purgeExpiredCollection', { collection, batchSize: 3, maxBatches: 2 }]));
  expect(expired.get('housekeeping-frequent')!.get('refresh_tokens')).toBe(12);
  expect(await flowState(handle)).toBe('done');
  await recordHistory(handle, 'housekeeping-frequent-pass');
});

it('the daily pass purges refresh_tokens', async () => {
  seed('housekeeping-daily');
  const handle = await w.start(housekeeping, { batchSize: 5, maxBatches: 100, pass: 'daily' }, 'housekeeping-daily');
  expect(await handle.result()).toEqual({ refresh_tokens: 12 });
  expect(purged(handle.workflowId)).toEqual([['purgeExpiredCollection', { collection: 'refresh_tokens', batchSize: 5, maxBatches: 100 }]]);
  await recordHistory(handle, 'housekeeping-daily-pass');
});

it('without a pass, every collection is purged', async () => {
  seed('housekeeping-all');
  const handle = await w.start(housekeeping, { batchSize: 3, maxBatches: 10 }, 'housekeeping-all');
  const deleted: Record<string, number> = { sessions: 7, refresh_tokens: 12, device_codes: 3 };
  expect(await handle.result()).toEqual(Object.fromEntries(EXPIRING_COLLECTIONS.map((c) => [c, deleted[c] ?? 0])));
  expect(purged(handle.workflowId).map(([, arg]) => (arg as { collection: string }).collection)).toEqual([...EXPIRING_COLLECTIONS]);
});
