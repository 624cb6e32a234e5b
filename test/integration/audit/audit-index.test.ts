// The audit index on a real FerretDB: written by inserts only, one document
// per key per batch, found by probing up from a floor. Many batches of one
// key (floors raised, the probe's doubling and halving), two sealers with
// their own memories of the index (a stale one must neither overwrite nor
// skip), a batch indexed twice, retention deleting the oldest documents, and
// walks from a cursor.
import type { AuditEntry } from '../../../lib/model/audit-events.js';
import { deleteIndexDocs, FLOOR_EVERY, indexBatch, indexDocId, newIndexCache, positionsOf, sizeOf } from '../../../lib/store/audit-index.js';
import { positionOf } from '../../../lib/store/audit-records.js';
import type { Store } from '../../../lib/store/db.js';
import { openTestStore, testDatabase } from '../../support/database.js';

const database = testDatabase('audit_index');
let store: Store;
beforeAll(() => {
  store = openTestStore(database);
});
afterAll(async () => {
  await store.client.db(database.name).dropDatabase();
  await store.close();
});

/** A record of `userId` (other keys vary with `i`). */
const entry = (userId: string, i: number): AuditEntry => ({
  id: `id-${userId}-${i}`,
  time: new Date(),
  event: 'login',
  stream: 'user',
  outcome: 'success',
  actor: { type: 'user', userId },
  subject: { userId },
  ip: `203.0.113.${i % 200}`,
  data: {},
});

async function all(key: string, before?: string): Promise<string[]> {
  const out: string[] = [];
  for await (const p of positionsOf(store, key, before)) out.push(p);
  return out;
}

it('finds every position of a key over many batches, newest first, from any cursor, whichever sealer wrote which batch', async () => {
  const one = newIndexCache();
  const other = newIndexCache();
  const indexed: string[][] = [];
  const want: string[] = [];
  // 70 batches: two records of u-many each, written alternately by two sealers (each cache goes stale by turns).
  for (let seq = 0; seq < 70; seq++) {
    const records = [0, 1].map((idx) => ({ position: positionOf(seq, idx), entry: entry('u-many', seq * 2 + idx) }));
    indexed.push(await indexBatch(store, seq, records, seq % 3 === 0 ? other : one));
    want.unshift(positionOf(seq, 1), positionOf(seq, 0));
  }
  expect(await all('u:u-many')).toEqual(want);
  expect(await sizeOf(store, 'u:u-many')).toBe(140);
  // One document per key per batch, numbered without gaps.
  expect(indexed[69]).toContain(indexDocId('u:u-many', 69));
  // The floor was raised as the key grew (a reader probes a few documents, not seventy).
  const head = await store.auditIndex.findOne({ _id: 'u:u-many' });
  expect(head?.floor).toBeGreaterThanOrEqual(70 - 1 - 2 * FLOOR_EVERY);
  // From a cursor: strictly older positions, in the same order.
  const cursor = positionOf(40, 1);
  expect(await all('u:u-many', cursor)).toEqual(want.filter((p) => p < cursor));
  expect(await all('u:u-many', positionOf(0, 0))).toEqual([]);
  expect(await all('u:nobody')).toEqual([]);
  expect(await sizeOf(store, 'u:nobody')).toBe(0);

  // A batch indexed again (a resumed seal, a sealer with no memory): nothing twice.
  const again = await indexBatch(
    store,
    69,
    [0, 1].map((idx) => ({ position: positionOf(69, idx), entry: entry('u-many', 138 + idx) })),
  );
  expect(again.sort()).toEqual([...indexed[69]!].sort());
  expect(await all('u:u-many')).toEqual(want);

  // Retention deletes the first 50 batches' documents: the rest is still found, from its floor.
  await deleteIndexDocs(store, indexed.slice(0, 50).flat());
  expect(await all('u:u-many')).toEqual(want.slice(0, 40));
  // A key whose every document went: empty, and numbered on from where it was.
  await deleteIndexDocs(store, indexed.slice(50).flat());
  expect(await all('u:u-many')).toEqual([]);
  const fresh = newIndexCache();
  const later = await indexBatch(store, 70, [{ position: positionOf(70, 0), entry: entry('u-many', 140) }], fresh);
  expect(later).toContain(indexDocId('u:u-many', 70));
  expect(await all('u:u-many')).toEqual([positionOf(70, 0)]);
  // The stale sealer (its memory says 70 is free) adds the next batch after it, not over it.
  await indexBatch(store, 71, [{ position: positionOf(71, 0), entry: entry('u-many', 141) }], one);
  expect(await all('u:u-many')).toEqual([positionOf(71, 0), positionOf(70, 0)]);
}, 120_000);
