import { Client, Connection } from '@temporalio/client';
import { housekeepingScheduleId } from '../../../lib/flows/housekeeping.js';
import { EXPIRING_COLLECTIONS } from '../../../lib/model/expiring.js';
import { SearchAttributes } from '../../../lib/temporal/search-attributes.js';
import { openStore, type Store } from '../../../lib/store/db.js';
import { purgeExpired } from '../../../lib/store/expiring.js';
import { eventually, testConfig } from '../../support/harness.js';

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
  const codes = store.expiring('par_requests');
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
    expect(schedule.action).toMatchObject({ args: [{ batchSize: config.housekeeping.batchSize, maxBatches: 20, pass: 'frequent' }] });
    // refresh_tokens are left to a daily pass (their families delete what they know).
    const daily = await client.schedule.getHandle(housekeepingScheduleId(config.temporal.taskQueue, 'daily')).describe();
    expect(daily.action).toMatchObject({ type: 'startWorkflow', workflowType: 'housekeeping', args: [expect.objectContaining({ pass: 'daily' })] });
    expect(daily.spec.intervals?.[0]?.every).toBe(24 * 3600_000);
  });

  it('removes the expired documents and keeps the live ones in every expiring collection', async () => {
    const tag = `hk-all-${Date.now()}`;
    // Every document with a unique sid too: sessions index it.
    const doc = (c: string, kind: string, at: Date) => ({ _id: `${tag}-${c}-${kind}`, sid: `${tag}-${c}-${kind}`, expiresAt: at });
    for (const c of EXPIRING_COLLECTIONS) await store.expiring(c).insertMany([doc(c, 'old', minutes(-2)), doc(c, 'new', minutes(30))]);
    await client.workflow.execute('housekeeping', {
      taskQueue: config.temporal.taskQueue,
      workflowId: `housekeeping-test-${tag}`,
      args: [{ batchSize: 50, maxBatches: 100 }],
    });
    for (const c of EXPIRING_COLLECTIONS) {
      const left = await store
        .expiring(c)
        .find({ _id: { $regex: `^${tag}-` } })
        .toArray();
      expect([c, left.map((d) => d._id)]).toEqual([c, [`${tag}-${c}-new`]]);
    }
  });

  it('finishes a pass over a large collection, deleting every expired document and no live one', async () => {
    const tag = `hk-large-${Date.now()}`;
    const tokens = store.expiring('refresh_tokens');
    const total = 20_000;
    // Every third document live, the rest long expired: the run reads the whole collection in one pass.
    const docs = Array.from({ length: total }, (_, i) => ({ _id: `${tag}-${i}`, expiresAt: minutes(i % 3 === 0 ? 60 : -600) }));
    for (let k = 0; k < total; k += 2000) await tokens.insertMany(docs.slice(k, k + 2000));
    const result = (await client.workflow.execute('housekeeping', {
      taskQueue: config.temporal.taskQueue,
      workflowId: `housekeeping-test-${tag}`,
      args: [{ batchSize: 500, maxBatches: 100, pass: 'daily' }],
    })) as Record<string, number>;
    expect(Object.keys(result)).toEqual(['refresh_tokens']);
    expect(result.refresh_tokens).toBeGreaterThanOrEqual(total - Math.ceil(total / 3));
    const left = await tokens.find({ _id: { $regex: `^${tag}-` } }, { projection: { _id: 1 } }).toArray();
    expect(left.map((d) => d._id).sort()).toEqual(
      docs
        .filter((_, i) => i % 3 === 0)
        .map((d) => d._id)
        .sort(),
    );
    await tokens.deleteMany({ _id: { $regex: `^${tag}-` } });
  });

  it('puts back a document written again with a later expiry between the read and the delete', async () => {
    const tag = `hk-again-${Date.now()}`;
    const logins = store.expiring('upstream_logins');
    const ids = Array.from({ length: 1500 }, (_, i) => `${tag}-${i}`);
    await logins.insertMany(ids.map((_id) => ({ _id, expiresAt: minutes(-1) })));
    const later = minutes(30);
    let rewritten = false;
    // At the first progress report (a thousand documents read, none deleted yet: one batch of them all),
    // every one of them is written again, live: those already read are deleted, then put back.
    await purgeExpired(store, 'upstream_logins', { batchSize: 100_000, maxBatches: 1 }, async () => {
      if (rewritten) return;
      rewritten = true;
      for (let k = 0; k < ids.length; k += 50)
        await Promise.all(ids.slice(k, k + 50).map((_id) => logins.replaceOne({ _id }, { expiresAt: later }, { upsert: true })));
    });
    expect(rewritten).toBe(true);
    const left = await logins.find({ _id: { $regex: `^${tag}-` } }).toArray();
    expect(left.length).toBe(ids.length);
    expect(left.every((d) => d.expiresAt.getTime() === later.getTime())).toBe(true);
    await logins.deleteMany({ _id: { $regex: `^${tag}-` } });
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
    expect(result.par_requests).toBeGreaterThanOrEqual(7);
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
