// The audit trail's hash chain (pure: no I/O). Each sealed record has a hash
// over its canonical JSON (keys sorted, times as ISO strings) including its
// place; each batch a hash over the previous batch's hash, its number and its
// records' hashes in order; and each batch head is signed (RS256, the site's
// key) by the sealer. Changing, removing, inserting or reordering a sealed
// record changes its batch's hash, which no longer matches the signed head;
// re-signing needs the site's private key, sealed with the KEK.
import { createHash } from 'node:crypto';
import type { AuditEntry, SealedAuditEntry } from '../model/audit-events.js';

/** The `prev` of the first batch ever sealed. */
export const GENESIS_HASH = '0'.repeat(64);
/** The JOSE `typ` of a signed batch head and of a retention checkpoint. */
export const BATCH_HEAD_TYP = 'keyflow-audit-batch+jwt';
export const CHECKPOINT_TYP = 'keyflow-audit-checkpoint+jwt';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** JSON with object keys sorted at every level and Dates as ISO strings: one text per value. */
export function canonicalJson(value: unknown): string {
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The fields of a sealed record its hash covers: everything but the storage key (which is its seq and idx). */
export function sealedFields(doc: SealedAuditEntry & { _id?: string }): SealedAuditEntry {
  const { _id, ...fields } = doc;
  void _id;
  return fields;
}

export const recordHash = (record: SealedAuditEntry): string => sha256(canonicalJson(sealedFields(record)));

export const batchHash = (prev: string, seq: number, recordHashes: string[]): string =>
  sha256(['keyflow-audit-v1', String(seq), prev, ...recordHashes].join('\n'));

/** A pending entry placed in batch `seq` at `idx`. */
export function placed(entry: AuditEntry, seq: number, idx: number): SealedAuditEntry {
  return { ...entry, seq, idx };
}

/** What a batch head's signature covers. */
export interface BatchHeadClaims {
  seq: number;
  prev: string;
  hash: string;
  count: number;
  /** The first and last record's time, ISO 8601. */
  first: string;
  last: string;
}

/** What a retention checkpoint's signature covers: the chain starts at `seq`, whose `prev` is `prev`. */
export interface CheckpointClaims {
  seq: number;
  prev: string;
  at: string;
}
