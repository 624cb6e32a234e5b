// Housekeeping: every expiring collection in turn, in batches of batchSize,
// until a batch comes back short or maxBatches ran (the next run continues).
import { Context } from '@temporalio/activity';
import { EXPIRING_COLLECTIONS } from '../../../lib/domain/expiring.js';
import { housekeeping } from '../../../workflows/housekeeping.js';
import { flowState, startWorkflowWorker, type WorkflowWorker } from '../../support/workflow-env.js';

let w: WorkflowWorker;
/** Expired documents per collection, per run (workflow id). */
const expired = new Map<string, Map<string, number>>();

beforeAll(async () => {
  w = await startWorkflowWorker('housekeeping', {
    async purgeExpiredBatch({ collection, batchSize }: { collection: string; batchSize: number }) {
      const left = expired.get(Context.current().info.workflowExecution!.workflowId)!;
      const n = Math.min(left.get(collection) ?? 0, batchSize);
      left.set(collection, (left.get(collection) ?? 0) - n);
      return n;
    },
  });
});
afterAll(() => w?.stop());

it('purges each collection in bounded batches and reports what it deleted', async () => {
  expired.set(
    'housekeeping-run-1',
    new Map([
      ['sessions', 7],
      ['refresh_tokens', 12],
      ['device_codes', 3],
    ]),
  );
  const handle = await w.start(housekeeping, { batchSize: 3, maxBatches: 2 }, 'housekeeping-run-1');
  // sessions and refresh_tokens: two full batches (maxBatches; the rest is the next run's);
  // device_codes: a full batch, then an empty one ends it; every other collection: one empty batch.
  const deleted: Record<string, number> = { sessions: 6, refresh_tokens: 6, device_codes: 3 };
  expect(await handle.result()).toEqual(Object.fromEntries(EXPIRING_COLLECTIONS.map((c) => [c, deleted[c] ?? 0])));
  const batches = w.callsOf(handle.workflowId).map((c) => c.arg);
  expect(batches).toEqual(EXPIRING_COLLECTIONS.flatMap((collection) => Array<object>(collection in deleted ? 2 : 1).fill({ collection, batchSize: 3 })));
  expect(expired.get('housekeeping-run-1')!.get('sessions')).toBe(1);
  expect(await flowState(handle)).toBe('done');
});
