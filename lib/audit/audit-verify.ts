// Verifying the audit trail's chain, in MongoDB or in an export file. What a
// verification reports (each a line; any one fails it):
// - a sealed record changed (its hash is not its batch's), removed, moved, or
//   inserted where no batch put one;
// - a batch changed (its hashes, count or times differ from its signed head),
//   removed, or not following the batch before it;
// - a signature that does not verify with a site key;
// - a chain shorter than the sealer's head in Temporal (batches cut off the end).
// docs/audit.md has the threat model: what an attacker with write access to
// MongoDB can and cannot hide.
import { compactVerify, type JWK } from 'jose';
import type { ChainHead } from '../model/audit-sealer.js';
import type { SealedAuditEntry } from '../model/audit-events.js';
import { everyBatchBounds, everySealed, findBatch, parsePosition, positionOf, readMeta } from '../store/audit-records.js';
import type { AuditBatchBoundsDoc, AuditBatchDoc } from '../model/audit-storage.js';
import type { Store } from '../store/db.js';
import { BATCH_HEAD_TYP, batchHash, CHECKPOINT_TYP, GENESIS_HASH, recordHash, type BatchHeadClaims, type CheckpointClaims } from './audit-chain.js';
import type { VerificationKeys } from './audit-keys.js';

export interface VerifyReport {
  /** The first batch verified (the checkpoint's, or `--since`'s). */
  from: number;
  /** The last batch verified. */
  to: number;
  batches: number;
  records: number;
  problems: string[];
}

/** The batch fields a verification reads (stored, or from an export line). */
export type BatchOfChain = Pick<AuditBatchDoc, 'seq' | 'prev' | 'hash' | 'hashes' | 'count' | 'jws'> & { first: Date | string; last: Date | string };

const iso = (d: Date | string) => (d instanceof Date ? d.toISOString() : d);
const short = (hash: string) => hash.slice(0, 12);

/** The claims of a signed head or checkpoint, or why not. */
async function verifiedClaims<T>(jws: string, typ: string, keys: VerificationKeys): Promise<T | string> {
  try {
    const kid = JSON.parse(Buffer.from(jws.split('.')[0] ?? '', 'base64url').toString('utf8')) as { kid?: string; typ?: string; alg?: string };
    if (kid.typ !== typ || kid.alg !== 'RS256') return `not a ${typ} signed with RS256`;
    const key = kid.kid ? keys.get(kid.kid) : undefined;
    if (!key) return `signed with a key that is not a site key (kid ${kid.kid ?? 'none'})`;
    const { payload } = await compactVerify(jws, key, { algorithms: ['RS256'] });
    return JSON.parse(Buffer.from(payload).toString('utf8')) as T;
  } catch (err) {
    return `its signature does not verify (${(err as Error).message})`;
  }
}

/**
 * One batch against its signed head and its records (`records[idx]`, null if
 * missing). `expectedPrev`: the hash it must follow; undefined when the batch
 * before it is missing (already reported).
 */
export async function checkBatch(
  batch: BatchOfChain,
  records: (SealedAuditEntry | null)[],
  expectedPrev: string | undefined,
  keys: VerificationKeys,
): Promise<string[]> {
  const problems: string[] = [];
  const name = `batch ${batch.seq}`;
  const claims = await verifiedClaims<BatchHeadClaims>(batch.jws, BATCH_HEAD_TYP, keys);
  if (typeof claims === 'string') problems.push(`${name}: ${claims}`);
  else {
    const stored: BatchHeadClaims = { seq: batch.seq, prev: batch.prev, hash: batch.hash, count: batch.count, first: iso(batch.first), last: iso(batch.last) };
    const changed = (Object.keys(stored) as (keyof BatchHeadClaims)[]).filter((k) => stored[k] !== claims[k]);
    if (changed.length) problems.push(`${name}: changed after sealing (${changed.join(', ')} differ from its signed head)`);
  }
  if (expectedPrev !== undefined && batch.prev !== expectedPrev)
    problems.push(`${name}: does not follow the batch before it (prev ${short(batch.prev)}, expected ${short(expectedPrev)})`);
  if (batch.hashes.length !== batch.count || batchHash(batch.prev, batch.seq, batch.hashes) !== batch.hash)
    problems.push(`${name}: its list of record hashes was changed`);
  for (let idx = 0; idx < batch.count; idx++) {
    const position = positionOf(batch.seq, idx);
    const record = records[idx] ?? null;
    if (!record) problems.push(`record ${position}: removed`);
    else if (record.seq !== batch.seq || record.idx !== idx) problems.push(`record ${position}: moved (it says ${positionOf(record.seq, record.idx)})`);
    else if (recordHash(record) !== batch.hashes[idx]) problems.push(`record ${position}: changed after sealing`);
  }
  return problems;
}

/** The checkpoint, verified: where the chain starts and what it follows. */
export async function checkpointStart(
  checkpoint: { seq: number; hash: string; jws?: string } | null,
  keys: VerificationKeys,
): Promise<{ seq: number; prev: string; problems: string[] }> {
  if (!checkpoint) return { seq: 0, prev: GENESIS_HASH, problems: [] };
  const claims = checkpoint.jws ? await verifiedClaims<CheckpointClaims>(checkpoint.jws, CHECKPOINT_TYP, keys) : 'it is not signed';
  const problems =
    typeof claims === 'string'
      ? [`checkpoint: ${claims}`]
      : claims.seq !== checkpoint.seq || claims.prev !== checkpoint.hash
        ? ['checkpoint: changed after it was signed']
        : [];
  return { seq: checkpoint.seq, prev: checkpoint.hash, problems };
}

/** A finished batch's bounds must match it: searches by time read them, and would skip or misplace its records. */
function boundsProblems(batch: AuditBatchDoc, bounds: AuditBatchBoundsDoc | undefined): string[] {
  if (!batch.done) return [];
  if (!bounds) return [`batch ${batch.seq}: its bounds were removed (searches by time skip it)`];
  const same = bounds.first.getTime() === batch.first.getTime() && bounds.last.getTime() === batch.last.getTime() && bounds.count === batch.count;
  return same ? [] : [`batch ${batch.seq}: its bounds differ from it (searches by time skip or misplace its records)`];
}

/** The first batch at or after `start` whose last record is at or after `since` (batches are in time order). */
export async function firstBatchSince(store: Store, start: number, end: number, since: Date): Promise<number> {
  let low = start;
  let high = end;
  let answer = end + 1;
  while (low <= high) {
    const mid = Math.floor((low + high) / 2);
    // The batch itself, not its bounds: retention deletes by this answer, so only signed data decides it.
    const batch = await findBatch(store, mid);
    if (!batch || batch.last >= since) {
      answer = mid;
      high = mid - 1;
    } else low = mid + 1;
  }
  return answer;
}

export interface StoredVerifyOptions {
  since?: Date;
  /** The sealer's head as Temporal knows it (null: the sealer was not reachable). */
  anchor?: ChainHead | null;
  progress?: (batches: number) => void;
}

/** Verifies the chain in MongoDB: one scan of the sealed records, then each batch by `_id`. */
export async function verifyStoredChain(store: Store, keys: VerificationKeys, options: StoredVerifyOptions = {}): Promise<VerifyReport> {
  const start = await checkpointStart(await readMeta(store, 'checkpoint'), keys);
  const problems = [...start.problems];
  const head = await readMeta(store, 'head');
  let from = start.seq;
  let expectedPrev: string | undefined = start.prev;
  const last = head?.seq ?? start.seq - 1;
  if (options.since && head) {
    const s = await firstBatchSince(store, start.seq, head.seq, options.since);
    if (s > start.seq) {
      from = s;
      expectedPrev = (await findBatch(store, s - 1))?.hash;
    }
  }
  // The one scan: every sealed record's hash, by batch (records are not read in order on FerretDB v1).
  const byBatch = new Map<number, (SealedAuditEntry | null)[]>();
  const strays: string[] = [];
  for await (const doc of everySealed(store)) {
    const place = parsePosition(doc._id);
    if (!place) {
      strays.push(`record ${doc._id}: inserted (not a position)`);
      continue;
    }
    if (place.seq < from) continue; // before the checkpoint (being deleted by retention) or before --since
    const list = byBatch.get(place.seq) ?? [];
    list[place.idx] = doc;
    byBatch.set(place.seq, list);
  }
  const bounds = await everyBatchBounds(store);
  let batches = 0;
  let records = 0;
  for (let seq = from; seq <= last; seq++) {
    const batch = await findBatch(store, seq);
    const found = byBatch.get(seq) ?? [];
    byBatch.delete(seq);
    if (!batch) {
      problems.push(`batch ${seq}: removed`);
      expectedPrev = undefined;
      continue;
    }
    problems.push(...(await checkBatch(batch, found.slice(0, batch.count), expectedPrev, keys)));
    problems.push(...boundsProblems(batch, bounds.get(seq)));
    for (let idx = batch.count; idx < found.length; idx++) if (found[idx]) problems.push(`record ${positionOf(seq, idx)}: inserted`);
    expectedPrev = batch.hash;
    batches += 1;
    records += batch.count;
    options.progress?.(batches);
  }
  // Past the head: a batch being sealed now is fine; a finished one means the head was moved back.
  for (let seq = last + 1; ; seq++) {
    const batch = await findBatch(store, seq);
    if (!batch) break;
    if (batch.done) problems.push(`batch ${seq}: sealed but after the recorded head (${last}): the head was moved back`);
    byBatch.delete(seq);
  }
  for (const [seq, list] of byBatch) list.forEach((r, idx) => r && problems.push(`record ${positionOf(seq, idx)}: inserted (no such batch)`));
  problems.push(...strays);
  if (options.anchor) {
    if (options.anchor.seq > last)
      problems.push(`the chain ends at batch ${last}, but the sealer (Temporal) sealed up to batch ${options.anchor.seq}: batches were removed from its end`);
    else if (options.anchor.seq >= from) {
      const anchored = await findBatch(store, options.anchor.seq);
      if (anchored && anchored.hash !== options.anchor.hash) problems.push(`batch ${options.anchor.seq}: differs from the head the sealer (Temporal) holds`);
    }
  }
  return { from, to: last, batches, records, problems };
}

/** The lines of an export (`keyflow audit export`): a header, then each batch's records followed by the batch. */
export type ExportLine =
  | {
      type: 'header';
      format: 'keyflow-audit-export';
      version: 1;
      from: number;
      to: number;
      prev: string;
      checkpoint: { seq: number; hash: string; jws?: string } | null;
      keys: JWK[];
      exported_at: string;
    }
  | { type: 'record'; position: string; record: SealedAuditEntry }
  | ({ type: 'batch' } & Omit<BatchOfChain, 'first' | 'last'> & { first: string; last: string });

/** Verifies an export, line by line: the same checks as the stored chain, without MongoDB. */
export async function verifyExportLines(
  lines: AsyncIterable<string>,
  keys: (header: Extract<ExportLine, { type: 'header' }>) => Promise<VerificationKeys>,
): Promise<VerifyReport> {
  const problems: string[] = [];
  let header: Extract<ExportLine, { type: 'header' }> | null = null;
  let verificationKeys: VerificationKeys = new Map();
  let records: (SealedAuditEntry | null)[] = [];
  let expectedPrev: string | undefined;
  let report: VerifyReport = { from: 0, to: -1, batches: 0, records: 0, problems };
  let lineNo = 0;
  for await (const text of lines) {
    lineNo += 1;
    if (!text.trim()) continue;
    let line: ExportLine;
    try {
      line = JSON.parse(text) as ExportLine;
    } catch {
      problems.push(`line ${lineNo}: not JSON`);
      continue;
    }
    if (line.type === 'header') {
      header = line;
      verificationKeys = await keys(line);
      expectedPrev = line.prev;
      report = { ...report, from: line.from, to: line.to };
      if (line.checkpoint && line.checkpoint.seq === line.from) problems.push(...(await checkpointStart(line.checkpoint, verificationKeys)).problems);
    } else if (!header) {
      problems.push(`line ${lineNo}: before the header`);
      break;
    } else if (line.type === 'record') {
      const place = parsePosition(line.position);
      if (!place) problems.push(`line ${lineNo}: record at ${line.position}: not a position`);
      else records[place.idx] = line.record;
    } else if (line.type === 'batch') {
      if (line.seq !== report.from + report.batches) problems.push(`batch ${report.from + report.batches}: removed`);
      problems.push(...(await checkBatch(line, records.slice(0, line.count), expectedPrev, verificationKeys)));
      for (let idx = line.count; idx < records.length; idx++) if (records[idx]) problems.push(`record ${positionOf(line.seq, idx)}: inserted`);
      expectedPrev = line.hash;
      report.batches += 1;
      report.records += line.count;
      records = [];
    } else problems.push(`line ${lineNo}: unknown line type`);
  }
  if (!header) problems.push('no header: not a Keyflow audit export');
  else if (report.batches !== header.to - header.from + 1) problems.push(`the export ends after ${report.batches} of ${header.to - header.from + 1} batches`);
  if (records.some(Boolean)) problems.push('records after the last batch: inserted');
  return report;
}
