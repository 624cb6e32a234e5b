// The audit trail's collections, on FerretDB v1 (only `_id` lookups are
// indexed; no sort, range or `$in` is pushed down, so every read here is by
// `_id`, except the small pending inbox):
//
// - audit_pending: records written by the api, the worker and the CLI, not
//   yet sealed; `_id` is the record id (time first). Drained by the sealer.
// - audit_batches: one per sealed batch, `_id` the batch number (zero-padded):
//   its records' ids, the chain hash and the signed head.
// - audit_records: sealed records, `_id` `<batch>-<index>` (zero-padded), so a
//   record's place is its key and the next page is computed, not searched.
// - audit_index: for each searchable value (user, client, event, outcome, IP)
//   a head and buckets of sealed positions, newest last (lib/store/audit-index.ts).
// - audit_meta: the chain's head (last batch and hash) and its checkpoint
//   (where verification starts after retention deleted older batches).
import type { AuditEntry } from '../model/audit-events.js';
import type { AuditBatchDoc, AuditMetaDoc, PendingAuditDoc, SealedAuditDoc } from '../model/audit-storage.js';

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

export async function insertPending(store: Store, entries: AuditEntry[]): Promise<void> {
  if (!entries.length) return;
  await store.auditPending.insertMany(
    entries.map((e) => ({ _id: e.id, ...e })),
    { ordered: false },
  );
}

/** The oldest pending records (a scan: the inbox holds seconds of records). */
export function oldestPending(store: Store, limit: number): Promise<PendingAuditDoc[]> {
  return store.auditPending.find({}).sort({ _id: 1 }).limit(limit).toArray();
}

/** Every pending record, newest first (what searches show above the sealed ones). */
export function allPending(store: Store, limit: number): Promise<PendingAuditDoc[]> {
  return store.auditPending.find({}).sort({ _id: -1 }).limit(limit).toArray();
}

export function pendingByIds(store: Store, ids: string[]): Promise<(PendingAuditDoc | null)[]> {
  return inChunks(ids, AT_ONCE, (id) => store.auditPending.findOne({ _id: id }));
}

/** One delete (a scan of the inbox, which holds seconds of records, instead of a round trip per record). */
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
  await store.auditBatches.deleteOne({ _id: batchKey(seq) });
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
