// The audit trail's search index on FerretDB v1, where only `_id` lookups are
// indexed and an update costs a round trip while an insert of many documents
// costs one: so the index is written by inserts only. For each searchable
// value (its key: `u:<user id>` actor or subject, `c:<client id>` actor or
// subject, `e:<event>`, `o:<outcome>`, `i:<ip>`) every sealed batch that holds
// it adds one document `<key>#<n>`, numbered 0, 1, 2… with no gap: the
// batch's positions of that key, the batch's number and the key's running
// total. A batch's documents for all its keys go in one unordered insert.
//
// Finding a key's newest document: its head document `<key>` (inserted
// before the key's first document) holds `floor`, a number at or below the
// newest (raised now and then by the writer, and by retention as it deletes
// the oldest), and the reader probes upward from it (doubling, then halving:
// a handful of `_id` lookups). Documents below the floor may be gone
// (retention): a walk downward stops at the first missing.
//
// Only the sealer writes, one batch at a time and in order; it remembers each
// key's next number (IndexCache) so that a batch costs no read. A cache gone
// stale (another worker sealed since, or a crash) shows as a duplicate `_id`
// on insert: the key is probed again. A batch a crash left half indexed is
// finished by skipping the keys whose newest document already is that batch.
import type { AuditEntry } from '../model/audit-events.js';
import { insertManyAbsent, isDuplicateKeyError, type Store } from './db.js';
import { inChunks } from './in-chunks.js';
import type { AuditIndexDoc } from '../model/audit-storage.js';
import { parsePosition } from './audit-records.js';

/** The writer raises a key's floor once it is this many documents behind (fewer head writes, a few more probes per search). */
export const FLOOR_EVERY = 16;
/** `_id` lookups in flight at once. */
const AT_ONCE = 16;
/** Documents a walk reads ahead, in parallel. */
const READ_AHEAD = 8;
/** Retries of a key whose number another writer took (each after probing it again). */
const INSERT_ROUNDS = 5;

/** The index keys of one record. */
export function indexKeysOf(entry: AuditEntry): string[] {
  const keys = new Set<string>([`e:${entry.event}`, `o:${entry.outcome}`]);
  for (const u of [entry.actor.userId, entry.subject.userId]) if (u) keys.add(`u:${u}`);
  for (const c of [entry.actor.clientId, entry.subject.clientId]) if (c) keys.add(`c:${c}`);
  if (entry.ip) keys.add(`i:${entry.ip}`);
  return [...keys];
}

export const indexDocId = (key: string, n: number): string => `${key}#${n}`;

/** What the writer knows of a key: its next document number, the newest one's batch and total, and its floor. */
interface KeyState {
  next: number;
  seq: number;
  total: number;
  floor: number;
}

/**
 * The sealer's memory of the keys it wrote, one per worker process. Trusted
 * only for the batch after the one it indexed last: had another worker
 * sealed in between, retention could since have deleted a number the memory
 * holds as taken-by-others-then-free, and an insert there would succeed out
 * of order. (Within that, an entry gone stale through a race shows as a
 * duplicate `_id` and costs a probe.)
 */
export interface IndexCache {
  keys: Map<string, KeyState>;
  /** The batch it indexed last. */
  seq: number;
}
/** Keys remembered at most: past this the cache starts over (a miss costs a probe). */
const CACHE_LIMIT = 200_000;

export const newIndexCache = (): IndexCache => ({ keys: new Map(), seq: -1 });

const readDoc = (store: Store, id: string) => store.auditIndex.findOne({ _id: id });

/** The key's newest document and its next number, probed upward from the head's floor. */
async function probe(store: Store, key: string): Promise<KeyState> {
  const floor = (await readDoc(store, key))?.floor ?? 0;
  let present = await readDoc(store, indexDocId(key, floor));
  if (!present) return { next: floor, seq: -1, total: 0, floor };
  let low = floor;
  let step = 1;
  let high = low + step;
  // Doubling until a number is missing, then halving between the last present and the first missing.
  for (;;) {
    const doc = await readDoc(store, indexDocId(key, high));
    if (!doc) break;
    [low, present, step] = [high, doc, step * 2];
    high = low + step;
  }
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    const doc = await readDoc(store, indexDocId(key, mid));
    if (doc) [low, present] = [mid, doc];
    else high = mid;
  }
  return { next: low + 1, seq: present.seq ?? -1, total: present.total ?? 0, floor };
}

/**
 * Applies batch `seq`'s records (with their positions) to the index;
 * idempotent. Returns the ids of the batch's index documents (retention
 * deletes them with the batch).
 */
export async function indexBatch(
  store: Store,
  seq: number,
  records: { position: string; entry: AuditEntry }[],
  cache: IndexCache = newIndexCache(),
): Promise<string[]> {
  const byKey = new Map<string, string[]>();
  for (const { position, entry } of records)
    for (const key of indexKeysOf(entry)) {
      const list = byKey.get(key) ?? [];
      list.push(position);
      byKey.set(key, list);
    }
  if (cache.seq !== seq && cache.seq !== seq - 1) cache.keys.clear();
  if (cache.keys.size + byKey.size > CACHE_LIMIT) cache.keys.clear();
  const known = cache.keys;
  const written: string[] = [];
  let todo = [...byKey.keys()];
  for (let round = 0; todo.length && round < INSERT_ROUNDS; round++) {
    const unknown = todo.filter((key) => !known.has(key));
    // A key is new when its head can be inserted (every key gets its head before its first
    // document): new keys, most of a batch's unknown ones, cost no read.
    const existing = new Set(
      await insertManyAbsent(
        store.auditIndex,
        unknown.map((key): AuditIndexDoc => ({ _id: key, floor: 0 })),
      ),
    );
    const old = unknown.filter((_, i) => existing.has(i));
    const probed = await inChunks(old, AT_ONCE, (key) => probe(store, key));
    old.forEach((key, i) => known.set(key, probed[i]!));
    unknown.forEach((key, i) => existing.has(i) || known.set(key, { next: 0, seq: -1, total: 0, floor: 0 }));
    const docs: Required<Pick<AuditIndexDoc, '_id' | 'seq' | 'positions' | 'total'>>[] = [];
    const keysOfDocs: string[] = [];
    for (const key of todo) {
      const state = known.get(key)!;
      // Applied before a crash, or by another attempt (which a later batch may even have followed).
      if (state.seq >= seq) {
        written.push(indexDocId(key, state.seq === seq ? state.next - 1 : await newestAtOrBelow(store, key, state, seq)));
        continue;
      }
      const positions = byKey.get(key)!;
      docs.push({ _id: indexDocId(key, state.next), seq, positions, total: state.total + positions.length });
      keysOfDocs.push(key);
    }
    const taken = new Set(await insertManyAbsent(store.auditIndex, docs));
    todo = [];
    docs.forEach((doc, i) => {
      const key = keysOfDocs[i]!;
      if (taken.has(i)) {
        // Another writer has this number: forget what we knew and probe again.
        known.delete(key);
        return todo.push(key);
      }
      const state = known.get(key)!;
      known.set(key, { ...state, next: state.next + 1, seq, total: doc.total });
      written.push(doc._id);
    });
  }
  if (todo.length) throw new Error(`audit index: keys still contended after ${INSERT_ROUNDS} rounds (${todo.length})`);
  await raiseFloors(store, [...byKey.keys()], known);
  cache.seq = seq;
  return written;
}

/** The floors of keys whose newest document is FLOOR_EVERY or more above them ($max: a floor never goes down). */
async function raiseFloors(store: Store, keys: string[], cache: Map<string, KeyState>): Promise<void> {
  const behind = keys.filter((key) => {
    const state = cache.get(key);
    return state && state.next - 1 - state.floor >= FLOOR_EVERY;
  });
  await inChunks(behind, AT_ONCE, async (key) => {
    const state = cache.get(key)!;
    await raiseFloor(store, key, state.next - 1);
    cache.set(key, { ...state, floor: state.next - 1 });
  });
}

async function raiseFloor(store: Store, key: string, floor: number): Promise<void> {
  try {
    await store.auditIndex.updateOne({ _id: key }, { $max: { floor } }, { upsert: true });
  } catch (err) {
    // Two first writes of one head raced: the other's is as good.
    if (!isDuplicateKeyError(err)) throw err;
  }
}

/** The number of the key's newest document whose batch is at or below `seq` (a binary search: batches grow with the number). */
async function newestAtOrBelow(store: Store, key: string, state: KeyState, seq: number): Promise<number> {
  if (state.seq <= seq) return state.next - 1;
  let low = state.floor - 1;
  let high = state.next - 1;
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    const doc = await readDoc(store, indexDocId(key, mid));
    if (doc && (doc.seq ?? 0) <= seq) low = mid;
    else high = mid;
  }
  return low;
}

/**
 * The positions of `key`, newest first, below `before` (a position; none:
 * from the newest). Reads a few documents ahead, as the caller pulls.
 */
export async function* positionsOf(store: Store, key: string, before?: string): AsyncGenerator<string> {
  const state = await probe(store, key);
  if (state.next === state.floor) return;
  const beforeSeq = before === undefined ? null : (parsePosition(before)?.seq ?? null);
  let n = beforeSeq === null ? state.next - 1 : await newestAtOrBelow(store, key, state, beforeSeq);
  while (n >= 0) {
    const ids = Array.from({ length: Math.min(READ_AHEAD, n + 1) }, (_, i) => indexDocId(key, n - i));
    const docs = await Promise.all(ids.map((id) => readDoc(store, id)));
    for (const doc of docs) {
      // Below here retention deleted the rest.
      if (!doc) return;
      const positions = doc.positions ?? [];
      for (let i = positions.length - 1; i >= 0; i--) if (before === undefined || positions[i]! < before) yield positions[i]!;
    }
    n -= ids.length;
  }
}

/** How many positions `key` has had (what the search compares to pick the narrowest key). */
export async function sizeOf(store: Store, key: string): Promise<number> {
  return (await probe(store, key)).total;
}

/**
 * Retention: deletes index documents of batches it removes. Each key's floor
 * is raised past them first, so a reader never starts below what is left.
 */
export async function deleteIndexDocs(store: Store, ids: string[]): Promise<void> {
  const newest = new Map<string, number>();
  for (const id of ids) {
    const at = id.lastIndexOf('#');
    const key = id.slice(0, at);
    newest.set(key, Math.max(newest.get(key) ?? -1, Number(id.slice(at + 1))));
  }
  await inChunks([...newest], AT_ONCE, ([key, n]) => raiseFloor(store, key, n + 1));
  await inChunks(ids, AT_ONCE, (id) => store.auditIndex.deleteOne({ _id: id }));
}
