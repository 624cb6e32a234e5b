// The audit trail's collections, on FerretDB v1 (only `_id` lookups are
// indexed; no sort, range or `$in` is pushed down, so every read here is by
// `_id`, except the small pending inbox):
//
// - audit_pending: records written by the api, the worker and the CLI, not
//   yet sealed: one document per group write (`_id` its first record's id,
//   time first), so a busy api makes one insert command per group. Read by
//   the sealer once per pass (a scan: FerretDB decodes every record in it)
//   and emptied by one `deleteMany` per batch.
// - audit_batches: one per sealed batch, `_id` the batch number (zero-padded):
//   its records' ids, the chain hash and the signed head.
// - audit_batch_bounds: each batch's first and last time and count, small,
//   for the binary searches over time (a batch document is large to read).
// - audit_records: sealed records, `_id` `<batch>-<index>` (zero-padded), so a
//   record's place is its key and the next page is computed, not searched.
// - audit_index: for each searchable value (user, client, event, outcome, IP)
//   a head and buckets of sealed positions, newest last (lib/store/audit-index.ts).
// - audit_meta: the chain's head (last batch and hash) and its checkpoint
//   (where verification starts after retention deleted older batches).
import type { AuditEntry } from '../model/audit-events.js';
import type { AuditBatchBoundsDoc, AuditBatchDoc, AuditMetaDoc, PendingAuditDoc, SealedAuditDoc } from '../model/audit-storage.js';

import { insertIfAbsent, insertManyAbsent, type Store } from './db.js';
import { inChunks } from './in-chunks.js';

/** `_id` lookups and deletes in flight at once (store/in-chunks.ts). */
const AT_ONCE = 16;

const pad = (n: number, width: number) => String(n).padStart(width, '0');
export const batchKey = (seq: number): string => pad(seq, 12);
export const positionOf = (seq: number, idx: number): string => `${batchKey(seq)}-${pad(idx, 5)}`;
export function parsePosition(position: string): { seq: number; idx: number } | null {
  const m = /^(\d{12})-(\d{5})$/.exec(position);
  return m ? { seq: Number(m[1]), idx: Number(m[2]) } : null;
}

/** Records per inbox document: a larger group write is split, so a batch (whole documents) stays near its size. */
export const RECORDS_PER_PENDING_DOC = 100;

/** One group write: one document per RECORDS_PER_PENDING_DOC records, in one insert. */
export async function insertPending(store: Store, entries: AuditEntry[]): Promise<void> {
  const docs: PendingAuditDoc[] = [];
  for (let i = 0; i < entries.length; i += RECORDS_PER_PENDING_DOC) {
    const records = entries.slice(i, i + RECORDS_PER_PENDING_DOC);
    docs.push({ _id: records[0]!.id, records });
  }
  if (docs.length) await store.auditPending.insertMany(docs, { ordered: false });
}

/** The oldest inbox documents (a scan, which costs per record read: the sealer makes one per pass, not per batch). */
export function oldestPending(store: Store, limit: number): Promise<PendingAuditDoc[]> {
  return store.auditPending.find({}).sort({ _id: 1 }).limit(limit).toArray();
}

/** Whether the inbox holds nothing (a benchmark waits for the sealer to catch up before it counts the cost). */
export async function inboxIsEmpty(store: Store): Promise<boolean> {
  return (await store.auditPending.findOne({}, { projection: { _id: 1 } })) === null;
}

/** Every pending record, newest first, at most `limit` (what searches show above the sealed ones). */
export async function allPending(store: Store, limit: number): Promise<AuditEntry[]> {
  const docs = await store.auditPending.find({}).toArray();
  return docs
    .flatMap((d) => d.records)
    .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .slice(0, limit);
}

export function pendingByIds(store: Store, ids: string[]): Promise<(PendingAuditDoc | null)[]> {
  return inChunks(ids, AT_ONCE, (id) => store.auditPending.findOne({ _id: id }));
}

/**
 * One delete: a scan of the inbox (which holds seconds of records), cheaper
 * than a delete by `_id` per document (about 1.5 ms of FerretDB's time each,
 * one at a time: against about 0.12 ms per record a scan decodes).
 */
export async function removePending(store: Store, ids: string[]): Promise<void> {
  if (ids.length) await store.auditPending.deleteMany({ _id: { $in: ids } });
}

export const findBatch = (store: Store, seq: number): Promise<AuditBatchDoc | null> => store.auditBatches.findOne({ _id: batchKey(seq) });

/** Claims batch `seq`: false if another sealer (or an earlier attempt) holds it. */
export const insertBatch = (store: Store, batch: AuditBatchDoc): Promise<boolean> => insertIfAbsent(store.auditBatches, batch);

export async function markBatchDone(store: Store, seq: number, indexed: string[]): Promise<void> {
  await store.auditBatches.updateOne({ _id: batchKey(seq) }, { $set: { done: true, indexed } });
}

export async function deleteBatch(store: Store, seq: number): Promise<void> {
  await store.auditBatchBounds.deleteOne({ _id: batchKey(seq) });
  await store.auditBatches.deleteOne({ _id: batchKey(seq) });
}

/** Writes a batch's bounds (once: a resumed batch's were perhaps written already). */
export async function insertBatchBounds(store: Store, batch: AuditBatchDoc): Promise<void> {
  const { seq, first, last, count } = batch;
  await insertIfAbsent(store.auditBatchBounds, { _id: batchKey(seq), seq, first, last, count });
}

/** A batch's bounds; its batch document's when they were not written (a batch not finished yet). */
export async function findBatchBounds(store: Store, seq: number): Promise<AuditBatchBoundsDoc | null> {
  const bounds = await store.auditBatchBounds.findOne({ _id: batchKey(seq) });
  if (bounds) return bounds;
  const batch = await findBatch(store, seq);
  return batch ? { _id: batch._id, seq, first: batch.first, last: batch.last, count: batch.count } : null;
}

/** Copies sealed records in; records an earlier attempt copied are left as they are. */
export async function insertSealed(store: Store, docs: SealedAuditDoc[]): Promise<void> {
  await insertManyAbsent(store.auditRecords, docs);
}

export function sealedAt(store: Store, positions: string[]): Promise<(SealedAuditDoc | null)[]> {
  return inChunks(positions, AT_ONCE, (p) => store.auditRecords.findOne({ _id: p }));
}

export async function deleteSealed(store: Store, positions: string[]): Promise<void> {
  await inChunks(positions, AT_ONCE, (p) => store.auditRecords.deleteOne({ _id: p }));
}

/** Every batch's bounds, by batch number (verification's one scan of them). */
export async function everyBatchBounds(store: Store): Promise<Map<number, AuditBatchBoundsDoc>> {
  return new Map((await store.auditBatchBounds.find({}).toArray()).map((b) => [b.seq, b]));
}

/** Every sealed record, in no particular order (verification's one scan, to find records inserted after sealing). */
export function everySealed(store: Store) {
  return store.auditRecords.find({});
}

export const readMeta = (store: Store, id: AuditMetaDoc['_id']): Promise<AuditMetaDoc | null> => store.auditMeta.findOne({ _id: id });

export async function writeMeta(store: Store, doc: AuditMetaDoc): Promise<void> {
  await store.auditMeta.replaceOne({ _id: doc._id }, doc, { upsert: true });
}

/** Moves the head forward only (a slower sealer's late write never moves it back). */
export async function advanceHead(store: Store, seq: number, hash: string, at: Date): Promise<void> {
  const moved = await store.auditMeta.updateOne({ _id: 'head', seq: { $lt: seq } }, { $set: { seq, hash, at } });
  if (moved.matchedCount === 0) await insertIfAbsent(store.auditMeta, { _id: 'head', seq, hash, at });
}
