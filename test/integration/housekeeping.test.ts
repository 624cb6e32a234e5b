import { Client, Connection } from '@temporalio/client';
import { housekeepingScheduleId } from '../../lib/flows/housekeeping.js';
import { SearchAttributes } from '../../lib/temporal/search-attributes.js';
import { openStore, type Store } from '../../lib/store/db.js';
import { eventually, testConfig } from '../support/harness.js';

const config = testConfig();
let store: Store;
let connection: Connection;
let client: Client;

beforeAll(async () => {
  store = openStore(config);
  connection = await Connection.connect({ address: config.temporal.address });
  client = new Client({ connection, namespace: config.temporal.namespace });
});
afterAll(async () => {
  await connection.close();
  await store.close();
});

const minutes = (n: number) => new Date(Date.now() + n * 60_000);

async function seed(tag: string, expired: number, fresh: number) {
  const sessions = store.expiring('sessions');
  const codes = store.expiring('authorization_codes');
  const docs = (n: number, at: Date, kind: string) => Array.from({ length: n }, (_, i) => ({ _id: `${tag}-${kind}-${i}`, expiresAt: at }));
  await sessions.insertMany([...docs(expired, minutes(-5), 'old'), ...docs(fresh, minutes(60), 'new')]);
  await codes.insertMany([...docs(expired, minutes(-1), 'old'), ...docs(fresh, minutes(5), 'new')]);
  return {
    remaining: async () => ({
      sessions: (await sessions.find({ _id: { $regex: `^${tag}-` } }).toArray()).map((d) => d._id).sort(),
      codes: (await codes.find({ _id: { $regex: `^${tag}-` } }).toArray()).map((d) => d._id).sort(),
    }),
  };
}

describe('housekeeping', () => {
  it('runs as a Temporal Schedule the worker registered', async () => {
    const schedule = await client.schedule.getHandle(housekeepingScheduleId(config.temporal.taskQueue)).describe();
    expect(schedule.action).toMatchObject({ type: 'startWorkflow', workflowType: 'housekeeping', taskQueue: config.temporal.taskQueue });
    expect(schedule.spec.intervals?.[0]?.every).toBe(config.housekeeping.intervalMinutes * 60_000);
  });

  it('purges expired documents in bounded batches and keeps the rest', async () => {
    const tag = `hk-${Date.now()}`;
    const data = await seed(tag, 7, 3);
    const handle = await client.workflow.start('housekeeping', {
      taskQueue: config.temporal.taskQueue,
      workflowId: `housekeeping-test-${tag}`,
      args: [{ batchSize: 2, maxBatches: 100 }],
    });
    const result = (await handle.result()) as Record<string, number>;
    expect(result.sessions).toBeGreaterThanOrEqual(7);
    expect(result.authorization_codes).toBeGreaterThanOrEqual(7);
    const expectedNew = ['new-0', 'new-1', 'new-2'].map((s) => `${tag}-${s}`);
    expect(await data.remaining()).toEqual({ sessions: expectedNew, codes: expectedNew });
    const description = await handle.describe();
    expect(description.typedSearchAttributes.get(SearchAttributes.state)).toBe('done');
  });

  it('stops after maxBatches per run; the next run continues', async () => {
    const tag = `hk-cap-${Date.now()}`;
    const data = await seed(tag, 5, 0);
    // Other tests' leftovers may be expired too, so count only this test's documents.
    await client.workflow.execute('housekeeping', {
      taskQueue: config.temporal.taskQueue,
      workflowId: `housekeeping-test-${tag}-1`,
      args: [{ batchSize: 1, maxBatches: 2 }],
    });
    expect((await data.remaining()).sessions.length).toBeGreaterThanOrEqual(3);
    await client.workflow.execute('housekeeping', {
      taskQueue: config.temporal.taskQueue,
      workflowId: `housekeeping-test-${tag}-2`,
      args: [{ batchSize: 100, maxBatches: 10 }],
    });
    expect(await data.remaining()).toEqual({ sessions: [], codes: [] });
  });

  it('is started by the schedule when triggered', async () => {
    const tag = `hk-sched-${Date.now()}`;
    const data = await seed(tag, 2, 1);
    await client.schedule.getHandle(housekeepingScheduleId(config.temporal.taskQueue)).trigger();
    await eventually(async () => expect((await data.remaining()).sessions).toEqual([`${tag}-new-0`]), 30_000, 500);
  });
});
