// The sealer's step: takes the oldest records of the inbox, makes them the
// next batch of the chain (lib/audit/audit-chain.ts), copies them to their
// places, indexes them and empties them from the inbox. Run by the AuditSealer
// workflow's activity every few seconds, never by a request.
//
// Crash safety: the batch document is written first (a unique insert: one
// sealer wins a batch number) with the ids it takes and its signed head; every
// later step is idempotent, and the next seal resumes an unfinished batch
// before it takes new records. The head (`audit_meta`) moves only once a
// batch is done.
import type { JWTPayload } from 'jose';
import type { Signer } from '../keys/signer.js';
import type { ChainHead, SealResult } from '../model/audit-sealer.js';
import { currentDate } from '../runtime/clock.js';
import {
  advanceHead,
  batchKey,
  findBatch,
  insertBatch,
  insertBatchBounds,
  insertSealed,
  markBatchDone,
  oldestPending,
  pendingByIds,
  positionOf,
  readMeta,
  removePending,
  sealedAt,
} from '../store/audit-records.js';
import type { AuditEntry } from '../model/audit-events.js';
import type { AuditBatchDoc, PendingAuditDoc, SealedAuditDoc } from '../model/audit-storage.js';
import type { Store } from '../store/db.js';
import { BATCH_HEAD_TYP, batchHash, GENESIS_HASH, placed, recordHash, type BatchHeadClaims } from './audit-chain.js';
import { indexBatch, type IndexCache } from '../store/audit-index.js';

/** Records per batch: one batch document lists their ids. */
export const MAX_BATCH = 500;

export interface SealDeps {
  store: Store;
  signer: Signer;
  /** The index keys' next numbers, kept between batches (one per sealing process; absent: probed each batch). */
  indexCache?: IndexCache;
  /** Each sealed record, in order, for the stream to a log shipper (AUDIT_STREAM). */
  onSealed?: (records: SealedAuditDoc[], batch: AuditBatchDoc) => void;
}

/** Where the next batch goes and what it follows: after the head, else after the checkpoint, else the first ever. */
async function nextPlace(store: Store): Promise<ChainHead & { next: number }> {
  const head = await readMeta(store, 'head');
  if (head) return { seq: head.seq, hash: head.hash, next: head.seq + 1 };
  const checkpoint = await readMeta(store, 'checkpoint');
  if (checkpoint) return { seq: checkpoint.seq - 1, hash: checkpoint.hash, next: checkpoint.seq };
  return { seq: -1, hash: GENESIS_HASH, next: 0 };
}

export async function signBatchHead(signer: Signer, claims: BatchHeadClaims): Promise<string> {
  return signer.sign(claims as unknown as JWTPayload, { alg: 'RS256', typ: BATCH_HEAD_TYP });
}

/** Inbox documents one scan reads: several batches' worth, taken batch by batch. */
const READ_AHEAD_DOCS = 4 * MAX_BATCH;

/**
 * What the sealer's last scan of the inbox found and has not sealed yet.
 * Valid only for the batch number it was read for (`next`): a batch another
 * sealer took since may hold some of its documents, so any other number drops it.
 */
export interface InboxReadAhead {
  docs: PendingAuditDoc[];
  next: number;
}

export const newInboxReadAhead = (): InboxReadAhead => ({ docs: [], next: -1 });

/** The oldest whole inbox documents holding up to `maxBatch` records (at least one document). */
function takeBatch(docs: PendingAuditDoc[], maxBatch: number): PendingAuditDoc[] {
  let records = docs[0]!.records.length;
  let n = 1;
  while (n < docs.length && records + docs[n]!.records.length <= maxBatch) records += docs[n++]!.records.length;
  return docs.splice(0, n);
}

/**
 * Seals one batch (or finishes one a crash interrupted). Returns the batch
 * sealed, or null when the inbox was empty. `readAhead` (kept across calls by
 * sealPending) lets one scan of the inbox serve several batches.
 */
export async function sealNextBatch(deps: SealDeps, maxBatch = MAX_BATCH, readAhead = newInboxReadAhead()): Promise<AuditBatchDoc | null> {
  const place = await nextPlace(deps.store);
  const unfinished = await findBatch(deps.store, place.next);
  if (readAhead.next !== place.next || unfinished) readAhead.docs = [];
  readAhead.next = place.next;
  if (unfinished) return finishBatch(deps, unfinished);
  if (!readAhead.docs.length) readAhead.docs = await oldestPending(deps.store, READ_AHEAD_DOCS);
  if (!readAhead.docs.length) return null;
  const taken = takeBatch(readAhead.docs, maxBatch);
  const entries = taken.flatMap((d) => d.records).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const seq = place.next;
  const records = entries.map((entry, idx) => placed(entry, seq, idx));
  const hashes = records.map((r) => recordHash(r));
  const hash = batchHash(place.hash, seq, hashes);
  const claims: BatchHeadClaims = {
    seq,
    prev: place.hash,
    hash,
    count: records.length,
    first: records[0]!.time.toISOString(),
    last: records[records.length - 1]!.time.toISOString(),
  };
  const batch: AuditBatchDoc = {
    _id: batchKey(seq),
    seq,
    prev: place.hash,
    hash,
    hashes,
    count: records.length,
    ids: entries.map((e) => e.id),
    groups: taken.map((d) => d._id),
    first: records[0]!.time,
    last: records[records.length - 1]!.time,
    sealedAt: currentDate(),
    jws: await signBatchHead(deps.signer, claims),
    done: false,
  };
  // Another sealer took this number first: finish whatever it claimed.
  if (!(await insertBatch(deps.store, batch))) {
    readAhead.docs = [];
    const theirs = await findBatch(deps.store, seq);
    return theirs ? finishBatch(deps, theirs) : null;
  }
  readAhead.next = seq + 1;
  // Ours and new: nothing of it is copied yet, and its records are in hand.
  return finishBatch(deps, batch, { already: [], pending: entries });
}

/** What a batch's records are: already in their places, or still in the inbox (read unless the caller has them), in the batch's order. */
interface BatchState {
  already: (SealedAuditDoc | null | undefined)[];
  pending: (AuditEntry | undefined)[];
}

async function readBatchState(store: Store, batch: AuditBatchDoc): Promise<BatchState> {
  const positions = batch.ids.map((_, idx) => positionOf(batch.seq, idx));
  const [already, groups] = await Promise.all([sealedAt(store, positions), pendingByIds(store, batch.groups)]);
  const byId = new Map(groups.flatMap((g) => g?.records ?? []).map((r) => [r.id, r]));
  return { already, pending: batch.ids.map((id) => byId.get(id)) };
}

/** The batch's records in their places, indexed, gone from the inbox; then the head moves. Idempotent. */
async function finishBatch(deps: SealDeps, batch: AuditBatchDoc, known?: BatchState): Promise<AuditBatchDoc> {
  const { store } = deps;
  if (!batch.done) {
    const positions = batch.ids.map((_, idx) => positionOf(batch.seq, idx));
    const { already, pending } = known ?? (await readBatchState(store, batch));
    const docs: SealedAuditDoc[] = [];
    const fresh: SealedAuditDoc[] = [];
    batch.ids.forEach((_, idx) => {
      const existing = already[idx];
      if (existing) return docs.push(existing);
      const entry = pending[idx];
      // Neither copied nor pending: removed from the inbox after the batch was claimed; verification reports it.
      if (!entry) return;
      const doc = { _id: positions[idx]!, ...placed(entry, batch.seq, idx) };
      docs.push(doc);
      fresh.push(doc);
    });
    await insertSealed(store, fresh);
    const indexed = await indexBatch(
      store,
      batch.seq,
      docs.map((d) => ({ position: d._id, entry: d })),
      deps.indexCache,
    );
    await removePending(store, batch.groups);
    await insertBatchBounds(store, batch);
    await markBatchDone(store, batch.seq, indexed);
    deps.onSealed?.(docs, batch);
  }
  await advanceHead(store, batch.seq, batch.hash, currentDate());
  return { ...batch, done: true };
}

/** Seals until the inbox is empty or `budgetMs` has passed; returns the batches sealed and whether records are left. */
export async function sealPending(deps: SealDeps, budgetMs: number, heartbeat: () => void = () => {}): Promise<SealResult> {
  const started = performance.now();
  let batches = 0;
  let records = 0;
  let last: AuditBatchDoc | null = null;
  const readAhead = newInboxReadAhead();
  while (performance.now() - started < budgetMs) {
    const batch = await sealNextBatch(deps, MAX_BATCH, readAhead);
    heartbeat();
    if (!batch) return { batches, records, more: false, head: last ? { seq: last.seq, hash: last.hash } : null };
    batches += 1;
    records += batch.count;
    last = batch;
  }
  return { batches, records, more: true, head: last ? { seq: last.seq, hash: last.hash } : null };
}
