// The sealer's inbox on a real FerretDB: one document per group write, a batch
// takes whole documents, and one scan of the inbox serves several batches
// (the read-ahead) — but never a batch another sealer sealed in between: each
// record is sealed exactly once, and the chain verifies.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { siteVerificationKeys } from '../../../lib/audit/audit-keys.js';
import { newInboxReadAhead, sealNextBatch, sealPending } from '../../../lib/audit/audit-sealing.js';
import { newAuditId } from '../../../lib/audit/audit-trail.js';
import { verifyStoredChain } from '../../../lib/audit/audit-verify.js';
import { Keyring } from '../../../lib/keys/keyring.js';
import { createMlDsa65 } from '../../../lib/keys/mldsa.js';
import { Signer } from '../../../lib/keys/signer.js';
import type { AuditEntry } from '../../../lib/model/audit-events.js';
import { loadKek, type Kek } from '../../../lib/security/kek.js';
import { insertPending, RECORDS_PER_PENDING_DOC } from '../../../lib/store/audit-records.js';
import type { Store } from '../../../lib/store/db.js';
import { openTestStore, testDatabase } from '../../support/database.js';

const database = testDatabase('audit_sealing');
let store: Store;
let kek: Kek;
let signer: Signer;
beforeAll(async () => {
  store = openTestStore(database);
  kek = loadKek(randomBytes(32), fs.mkdtempSync(path.join(os.tmpdir(), 'audit-sealing-')));
  const keyring = new Keyring(store, kek, createMlDsa65('noble'), ['RS256']);
  await keyring.ensureInitialKeys();
  signer = new Signer(keyring, ['RS256']);
});
afterAll(async () => {
  await store.client.db(database.name).dropDatabase();
  await store.close();
});

let n = 0;
const entry = (): AuditEntry => {
  const time = new Date();
  n += 1;
  return {
    id: newAuditId(time),
    time,
    event: 'login',
    stream: 'user',
    outcome: 'success',
    actor: { type: 'user', userId: `u${n % 5}` },
    subject: {},
    requestId: `r${n}`,
    data: {},
  };
};

/** Every sealed record's request id, with how often it was sealed. */
async function sealedCounts(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const r of await store.auditRecords.find({}).toArray()) counts.set(r.requestId!, (counts.get(r.requestId!) ?? 0) + 1);
  return counts;
}

it('takes whole inbox documents per batch (a document larger than the batch whole), records in time order', async () => {
  // One group write of 150 records (two documents: 100 and 50), then single records.
  await insertPending(store, Array.from({ length: RECORDS_PER_PENDING_DOC + 50 }, entry));
  for (let i = 0; i < 3; i++) await insertPending(store, [entry()]);
  const readAhead = newInboxReadAhead();
  const counts: number[] = [];
  for (let batch = await sealNextBatch({ store, signer }, 60, readAhead); batch; batch = await sealNextBatch({ store, signer }, 60, readAhead)) {
    counts.push(batch.count);
    expect([...batch.ids].sort()).toEqual(batch.ids);
  }
  expect(counts).toEqual([RECORDS_PER_PENDING_DOC, 53]);
  expect(await store.auditPending.countDocuments({})).toBe(0);
});

it('drops what it read ahead when another sealer sealed since: each record sealed once, none lost, and the chain verifies', async () => {
  const before = await sealedCounts();
  for (let i = 0; i < 30; i++) await insertPending(store, [entry()]);
  // Sealer A reads all 30 and seals 10; sealer B, with no memory, seals the other 20; then A goes on.
  const a = newInboxReadAhead();
  expect((await sealNextBatch({ store, signer }, 10, a))?.count).toBe(10);
  expect(a.docs).toHaveLength(20);
  expect(await sealPending({ store, signer }, 30_000)).toMatchObject({ records: 20, more: false });
  expect(await sealNextBatch({ store, signer }, 10, a)).toBeNull();

  // More records: A's read-ahead serves several batches in a row.
  for (let i = 0; i < 30; i++) await insertPending(store, [entry()]);
  const sealedByA: number[] = [];
  for (let batch = await sealNextBatch({ store, signer }, 10, a); batch; batch = await sealNextBatch({ store, signer }, 10, a)) sealedByA.push(batch.count);
  expect(sealedByA).toEqual([10, 10, 10]);

  const counts = await sealedCounts();
  expect(counts.size - before.size).toBe(60);
  expect([...counts.values()].every((c) => c === 1)).toBe(true);
  const report = await verifyStoredChain(store, await siteVerificationKeys(store, kek));
  expect(report).toMatchObject({ records: 60 + 153, problems: [] });
});
