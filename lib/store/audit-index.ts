// The audit trail's search index on FerretDB v1, where only `_id` lookups are
// indexed: for each searchable value a head document (`<key>`: the newest
// bucket and its size) and buckets (`<key>#<n>`: up to BUCKET_SIZE positions,
// oldest first). Keys: `u:<user id>` (actor or subject), `c:<client id>`
// (actor or subject), `e:<event>`, `o:<outcome>`, `i:<ip>`.
//
// Only the sealer writes it, one batch at a time and in order. A head records
// the last batch applied to its key (`lastSeq`), so a seal resumed after a
// crash skips the keys it finished, and redoes the others idempotently.
import type { AnyBulkWriteOperation } from 'mongodb';
import type { AuditEntry } from '../model/audit-events.js';
import type { Store } from './db.js';
import { inChunks } from './in-chunks.js';
import type { AuditIndexDoc } from '../model/audit-storage.js';

export const BUCKET_SIZE = 500;
const PARALLEL_READS = 16;

/** The index keys of one record. */
export function indexKeysOf(entry: AuditEntry): string[] {
  const keys = new Set<string>([`e:${entry.event}`, `o:${entry.outcome}`]);
  for (const u of [entry.actor.userId, entry.subject.userId]) if (u) keys.add(`u:${u}`);
  for (const c of [entry.actor.clientId, entry.subject.clientId]) if (c) keys.add(`c:${c}`);
  if (entry.ip) keys.add(`i:${entry.ip}`);
  return [...keys];
}

const bucketId = (key: string, n: number) => `${key}#${n}`;

/**
 * Applies batch `seq`'s records (with their positions) to the index;
 * idempotent per batch. The heads are read by `_id`, then every bucket write
 * goes in one unordered bulk write and every head write in another (a round
 * trip each, not one per key): the heads last, so a crash between the two
 * leaves them as they were, and the next attempt computes the same places and
 * adds nothing twice to a bucket (`$addToSet`).
 */
export async function indexBatch(store: Store, seq: number, records: { position: string; entry: AuditEntry }[]): Promise<void> {
  const byKey = new Map<string, string[]>();
  for (const { position, entry } of records)
    for (const key of indexKeysOf(entry)) {
      const list = byKey.get(key) ?? [];
      list.push(position);
      byKey.set(key, list);
    }
  const keys = [...byKey.keys()];
  const heads = await inChunks(keys, PARALLEL_READS, (key) => store.auditIndex.findOne({ _id: key }));
  const buckets: AnyBulkWriteOperation<AuditIndexDoc>[] = [];
  const headWrites: AnyBulkWriteOperation<AuditIndexDoc>[] = [];
  keys.forEach((key, i) => {
    const head = heads[i];
    if (head && head.lastSeq >= seq) return; // applied before a crash
    let bucket = head?.bucket ?? 0;
    let size = head?.size ?? 0;
    let rest = byKey.get(key)!;
    while (rest.length) {
      if (size >= BUCKET_SIZE) {
        bucket += 1;
        size = 0;
      }
      const chunk = rest.slice(0, BUCKET_SIZE - size);
      rest = rest.slice(chunk.length);
      // $addToSet: a retried batch adds nothing twice; new positions are appended in order.
      buckets.push(upsertById(bucketId(key, bucket), { $addToSet: { positions: { $each: chunk } }, $set: { lastSeq: seq } }));
      size += chunk.length;
    }
    headWrites.push(upsertById(key, { $set: { bucket, size, lastSeq: seq } }));
  });
  await bulkUpserts(store, buckets);
  await bulkUpserts(store, headWrites);
}

/**
 * An upsert by `_id` alone: FerretDB v1 finds a document from its index only
 * for a lone `_id` filter (any other condition reads the whole collection).
 */
const upsertById = (id: string, update: Record<string, unknown>): AnyBulkWriteOperation<AuditIndexDoc> => ({
  updateOne: { filter: { _id: id }, update, upsert: true },
});

/**
 * The upserts, a few at a time (not one bulk write: FerretDB v1 was seen to
 * stall on a bulk of upserts into existing documents); a duplicate key (two
 * upserts of one new document racing) leaves the other's write, the same.
 */
async function bulkUpserts(store: Store, ops: AnyBulkWriteOperation<AuditIndexDoc>[]): Promise<void> {
  await inChunks(ops, PARALLEL_READS, async (op) => {
    if (!('updateOne' in op)) return;
    const { filter, update, upsert } = op.updateOne;
    try {
      await store.auditIndex.updateOne(filter, update, { upsert });
    } catch (err) {
      if ((err as { code?: number }).code !== 11000) throw err;
    }
  });
}

/**
 * The positions of `key`, newest first, below `before` (a position; none:
 * from the newest). Reads one bucket at a time, as the caller pulls.
 */
export async function* positionsOf(store: Store, key: string, before?: string): AsyncGenerator<string> {
  const head = await store.auditIndex.findOne({ _id: key });
  if (!head) return;
  for (let n = head.bucket ?? 0; n >= 0; n--) {
    const doc: AuditIndexDoc | null = await store.auditIndex.findOne({ _id: bucketId(key, n) });
    const positions = doc?.positions ?? [];
    for (let i = positions.length - 1; i >= 0; i--) if (before === undefined || positions[i]! < before) yield positions[i]!;
  }
}

/** How many positions `key` has (what the search compares to pick the narrowest key). */
export async function sizeOf(store: Store, key: string): Promise<number> {
  const head = await store.auditIndex.findOne({ _id: key });
  return head ? (head.bucket ?? 0) * BUCKET_SIZE + (head.size ?? 0) : 0;
}

/** Deletes `key`'s buckets that hold only positions of batches before `firstSeq` (retention). */
export async function pruneKey(store: Store, key: string, firstSeq: number): Promise<void> {
  const head = await store.auditIndex.findOne({ _id: key });
  if (!head) return;
  for (let n = 0; n < (head.bucket ?? 0); n++) {
    const doc = await store.auditIndex.findOne({ _id: bucketId(key, n) });
    if (!doc) continue;
    if (doc.lastSeq >= firstSeq) return;
    await store.auditIndex.deleteOne({ _id: bucketId(key, n) });
  }
}

/** Every head document's key (retention walks them once a day). */
export async function indexKeys(store: Store): Promise<string[]> {
  const docs = await store.auditIndex.find({ bucket: { $exists: true } }, { projection: { _id: 1 } }).toArray();
  return docs.map((d) => d._id);
}
