// Searching the audit trail: by user, client, event (a name or a prefix such as
// `login.*`), outcome, IP and time range, newest first, a page at a time. The
// inbox (records not sealed yet, seconds old) comes first; sealed records are
// found through the index (lib/store/audit-index.ts): the narrowest of the
// filter's keys is walked and the rest checked on each record, or, with no key
// to walk, the batches backwards from the time range's end. Every read is an
// `_id` lookup; a page examines at most SCAN_BUDGET records and otherwise ends
// early with a cursor to go on from.
import pLimit from 'p-limit';
import { auditEventsMatching, type AuditEntry, type AuditOutcome } from '../model/audit-events.js';
import { allPending, findBatchBounds, parsePosition, positionOf, readMeta, sealedAt } from '../store/audit-records.js';
import type { SealedAuditDoc } from '../model/audit-storage.js';
import type { Store } from '../store/db.js';
import { positionsOf, sizeOf } from '../store/audit-index.js';

export interface AuditFilter {
  /** The user who acted or was acted on. */
  userId?: string;
  /** The client that acted or was acted on. */
  clientId?: string;
  /** An event name, a prefix (`login.*`) or `*`. */
  event?: string;
  outcome?: AuditOutcome;
  ip?: string;
  /** At or after. */
  since?: Date;
  /** Before. */
  until?: Date;
}

/** A record as searches return it: sealed ones with their place in the chain. */
export type FoundAuditRecord = AuditEntry & { position: string | null };

export interface AuditPage {
  records: FoundAuditRecord[];
  /** Where the next page starts (pass as `cursor`), or null at the end. */
  next: string | null;
}

/** Records a page looks at before it returns what it has (with a cursor). */
export const SCAN_BUDGET = 5_000;
/** Inbox records a search looks at (the sealer keeps it to seconds of records). */
const PENDING_SCAN = 2_000;
const FETCH_PARALLEL = 32;

export class AuditFilterError extends Error {}

/** Does a record pass the filter? */
export function matchesFilter(r: AuditEntry, f: AuditFilter, events: Set<string> | null): boolean {
  if (f.userId && r.actor.userId !== f.userId && r.subject.userId !== f.userId) return false;
  if (f.clientId && r.actor.clientId !== f.clientId && r.subject.clientId !== f.clientId) return false;
  if (events && !events.has(r.event)) return false;
  if (f.outcome && r.outcome !== f.outcome) return false;
  if (f.ip && r.ip !== f.ip) return false;
  if (f.since && r.time < f.since) return false;
  if (f.until && r.time >= f.until) return false;
  return true;
}

function eventsOf(filter: AuditFilter): Set<string> | null {
  if (!filter.event || filter.event === '*') return null;
  const names = auditEventsMatching(filter.event);
  if (!names.length) throw new AuditFilterError(`no audit event matches ${JSON.stringify(filter.event)}`);
  return new Set(names);
}

/** A cursor as searchAudit gives them: `p:` and a record id (the inbox), or `s:` and a sealed position. */
export const isAuditCursor = (cursor: string): boolean =>
  /^p:[0-9a-f]{12}-[0-9a-f]{16}$/.test(cursor) || (cursor.startsWith('s:') && parsePosition(cursor.slice(2)) !== null);

/** Newest-first streams of positions, merged (several event names of a prefix). */
async function* merged(streams: AsyncGenerator<string>[]): AsyncGenerator<string> {
  const heads = await Promise.all(streams.map((s) => s.next()));
  for (;;) {
    let best = -1;
    heads.forEach((h, i) => {
      if (!h.done && (best < 0 || h.value > (heads[best]!.value as string))) best = i;
    });
    if (best < 0) return;
    yield heads[best]!.value as string;
    heads[best] = await streams[best]!.next();
  }
}

/** The positions of every sealed record, newest first, below `before`, starting at the batch the time range ends in. */
async function* allPositions(store: Store, filter: AuditFilter, before?: string): AsyncGenerator<string> {
  const head = await readMeta(store, 'head');
  if (!head) return;
  const checkpoint = await readMeta(store, 'checkpoint');
  const first = checkpoint?.seq ?? 0;
  let seq = filter.until ? await lastBatchBefore(store, first, head.seq, filter.until) : head.seq;
  for (let top = true; seq >= first; seq--, top = false) {
    const batch = await findBatchBounds(store, seq);
    if (!batch) continue;
    if (filter.since && batch.last < filter.since) return;
    // The batch the range ends in: its records at or after `until` are skipped unread.
    const end = top && filter.until ? await recordsBefore(store, seq, batch.count, filter.until) : batch.count;
    for (let idx = end - 1; idx >= 0; idx--) {
      const position = positionOf(seq, idx);
      if (before === undefined || position < before) yield position;
    }
  }
}

/**
 * How many of batch `seq`'s records are before `until`: a binary search over
 * its records, which are in time order (a batch's records are sorted by id,
 * and an id starts with the record's time). A record missing (retention, or
 * tampering: verify reports it) ends the search at the whole batch.
 */
async function recordsBefore(store: Store, seq: number, count: number, until: Date): Promise<number> {
  let low = 0;
  let high = count;
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    const [record] = await sealedAt(store, [positionOf(seq, mid)]);
    if (!record) return count;
    if (record.time < until) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The newest batch whose first record is before `until` (a binary search over batch numbers; batches are in time order). */
async function lastBatchBefore(store: Store, low: number, high: number, until: Date): Promise<number> {
  let answer = low - 1;
  while (low <= high) {
    const mid = Math.floor((low + high) / 2);
    const batch = await findBatchBounds(store, mid);
    if (batch && batch.first < until) {
      answer = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  return answer;
}

/** The walk for a filter: the narrowest index key it names, or every batch. */
async function walkFor(store: Store, filter: AuditFilter, events: Set<string> | null, before?: string): Promise<AsyncGenerator<string>> {
  const options: string[][] = [];
  if (filter.userId) options.push([`u:${filter.userId}`]);
  if (filter.clientId) options.push([`c:${filter.clientId}`]);
  if (filter.ip) options.push([`i:${filter.ip}`]);
  if (events) options.push([...events].map((e) => `e:${e}`));
  if (filter.outcome) options.push([`o:${filter.outcome}`]);
  if (!options.length) return allPositions(store, filter, before);
  const sizes = await Promise.all(options.map(async (keys) => (await Promise.all(keys.map((k) => sizeOf(store, k)))).reduce((a, b) => a + b, 0)));
  const narrowest = options[sizes.indexOf(Math.min(...sizes))]!;
  return merged(narrowest.map((k) => positionsOf(store, k, before)));
}

/**
 * One page of records matching `filter`, newest first. `cursor`: the `next`
 * of the page before (absent: from the newest).
 */
export async function searchAudit(store: Store, filter: AuditFilter, limit: number, cursor?: string): Promise<AuditPage> {
  const events = eventsOf(filter);
  // Only a cursor a page gave: anything else would silently restart or skip the walk.
  if (cursor !== undefined && !isAuditCursor(cursor)) throw new AuditFilterError('cursor: not one this search gave');
  const records: FoundAuditRecord[] = [];
  let sealedCursor: string | undefined;
  /** From an inbox cursor: the records at or after it were on the pages before (some may have been sealed since). */
  const after = cursor?.startsWith('p:') ? cursor.slice(2) : undefined;
  if (cursor === undefined || cursor.startsWith('p:')) {
    // The inbox first: records newer than anything sealed.
    const pending = (await allPending(store, PENDING_SCAN)).filter((p) => after === undefined || p.id < after);
    for (const entry of pending) {
      if (!matchesFilter(entry, filter, events)) continue;
      if (records.length === limit) return { records, next: `p:${records[records.length - 1]!.id}` };
      records.push({ ...entry, position: null });
    }
  } else if (cursor.startsWith('s:')) sealedCursor = cursor.slice(2);
  else throw new AuditFilterError('cursor: not one this search gave');

  // A record being sealed right now may be both in the inbox (read above) and in its place: shown once.
  const shown = new Set(records.map((r) => r.id));
  const walk = await walkFor(store, filter, events, sealedCursor);
  const fetch = pLimit(FETCH_PARALLEL);
  let examined = 0;
  let last: string | undefined;
  while (records.length < limit && examined < SCAN_BUDGET) {
    const positions: string[] = [];
    const want = Math.min(Math.max(limit - records.length, 16) * (events || filter.outcome || filter.ip ? 4 : 1), SCAN_BUDGET - examined);
    while (positions.length < want) {
      const n = await walk.next();
      if (n.done) break;
      positions.push(n.value);
    }
    if (!positions.length) return { records, next: null };
    examined += positions.length;
    const docs = await Promise.all(positions.map((p) => fetch(() => sealedAt(store, [p]).then(([d]) => d))));
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i] as SealedAuditDoc | null;
      last = positions[i];
      if (!doc) continue; // removed by retention since the index was read
      // Positions are in sealing order, which is time order: past `since`, nothing older can match.
      if (filter.since && doc.time < filter.since) return { records, next: null };
      if (!matchesFilter(doc, filter, events)) continue;
      if (after !== undefined && doc.id >= after) continue;
      if (shown.has(doc.id)) continue;
      const { _id, seq, idx, ...entry } = doc;
      void seq;
      void idx;
      records.push({ ...entry, position: _id });
      if (records.length === limit) return { records, next: `s:${_id}` };
    }
    if (positions.length < want) return { records, next: null };
  }
  return { records, next: last ? `s:${last}` : null };
}
