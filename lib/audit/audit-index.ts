// The audit trail's search index on FerretDB v1, where only `_id` lookups are
// indexed: for each searchable value a head document (`<key>`: the newest
// bucket and its size) and buckets (`<key>#<n>`: up to BUCKET_SIZE positions,
// oldest first). Keys: `u:<user id>` (actor or subject), `c:<client id>`
// (actor or subject), `e:<event>`, `o:<outcome>`, `i:<ip>`.
//
// Only the sealer writes it, one batch at a time and in order; each write is
// guarded by the batch number (`lastSeq`), so a seal resumed after a crash
// skips what it already applied.
import pLimit from 'p-limit';
import type { AuditEntry } from '../model/audit-events.js';
import type { Store } from '../store/db.js';
import type { AuditIndexDoc } from '../model/audit-storage.js';

export const BUCKET_SIZE = 500;
const PARALLEL_WRITES = 8;

/** The index keys of one record. */
export function indexKeysOf(entry: AuditEntry): string[] {
  const keys = new Set<string>([`e:${entry.event}`, `o:${entry.outcome}`]);
  for (const u of [entry.actor.userId, entry.subject.userId]) if (u) keys.add(`u:${u}`);
  for (const c of [entry.actor.clientId, entry.subject.clientId]) if (c) keys.add(`c:${c}`);
  if (entry.ip) keys.add(`i:${entry.ip}`);
  return [...keys];
}

const bucketId = (key: string, n: number) => `${key}#${n}`;
const isDuplicate = (err: unknown) => (err as { code?: number }).code === 11000;

/** Applies batch `seq`'s records (with their positions) to the index; idempotent per batch. */
export async function indexBatch(store: Store, seq: number, records: { position: string; entry: AuditEntry }[]): Promise<void> {
  const byKey = new Map<string, string[]>();
  for (const { position, entry } of records)
    for (const key of indexKeysOf(entry)) {
      const list = byKey.get(key) ?? [];
      list.push(position);
      byKey.set(key, list);
    }
  const limit = pLimit(PARALLEL_WRITES);
  await Promise.all([...byKey].map(([key, positions]) => limit(() => appendToKey(store, key, seq, positions))));
}

async function appendToKey(store: Store, key: string, seq: number, positions: string[]): Promise<void> {
  const head = await store.auditIndex.findOne({ _id: key });
  if (head && head.lastSeq >= seq) return; // applied before a crash
  let bucket = head?.bucket ?? 0;
  let size = head?.size ?? 0;
  let rest = positions;
  while (rest.length) {
    if (size >= BUCKET_SIZE) {
      bucket += 1;
      size = 0;
    }
    const chunk = rest.slice(0, BUCKET_SIZE - size);
    rest = rest.slice(chunk.length);
    await guardedUpsert(store, bucketId(key, bucket), seq, { $push: { positions: { $each: chunk } } });
    size += chunk.length;
  }
  // The head moves last: a crash before it leaves the buckets guarded by lastSeq, and the head as it was.
  await guardedUpsert(store, key, seq, { $set: { bucket, size } });
}

async function guardedUpsert(store: Store, id: string, seq: number, update: Record<string, unknown>): Promise<void> {
  const set = { ...((update.$set as Record<string, unknown>) ?? {}), lastSeq: seq };
  try {
    await store.auditIndex.updateOne({ _id: id, lastSeq: { $lt: seq } }, { ...update, $set: set }, { upsert: true });
  } catch (err) {
    if (!isDuplicate(err)) throw err; // the document is already past this batch
  }
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
