// The audit trail's stored documents (lib/store/audit-records.ts says which
// collection holds which, and why each is read by `_id` only). Pure: types.
import type { AuditEntry, SealedAuditEntry } from './audit-events.js';

/** One group write of the inbox: `_id` its first record's id (time first, so documents sort by time). */
export interface PendingAuditDoc {
  _id: string;
  records: AuditEntry[];
}

export interface SealedAuditDoc extends SealedAuditEntry {
  _id: string;
}

export interface AuditBatchDoc {
  _id: string;
  seq: number;
  /** The previous batch's hash (the checkpoint's for the first batch; 64 zeros for the first ever). */
  prev: string;
  /** SHA-256 over prev, seq and the records' hashes (lib/audit/audit-chain.ts). */
  hash: string;
  /** Each record's hash, in order: what `hash` is computed from, so verification names the record that changed. */
  hashes: string[];
  count: number;
  /** The record ids sealed in this batch, in order. */
  ids: string[];
  /** The inbox documents they came from (how an interrupted seal resumes, and what is deleted once sealed). */
  groups: string[];
  /** The first and last record's time. */
  first: Date;
  last: Date;
  sealedAt: Date;
  /** The batch head signed with a site key (compact JWS). */
  jws: string;
  /** Set once its records are copied, indexed and gone from the inbox. */
  done: boolean;
  /** Its index documents (set with `done`): retention deletes them with the batch. */
  indexed?: string[];
}

/**
 * A batch's place in time, apart from its batch document (which carries its
 * record ids and hashes: about 25 ms for FerretDB v1 to read at 500 records,
 * against about 2 ms for this): what a time-range search's binary search reads.
 */
export interface AuditBatchBoundsDoc {
  _id: string;
  seq: number;
  first: Date;
  last: Date;
  count: number;
}

export interface AuditIndexDoc {
  _id: string;
  /** Head documents (`<key>`): a number at or below the key's newest document, where readers start probing. */
  floor?: number;
  /** Key documents (`<key>#<n>`): the batch they index, its positions of the key (in order), and the key's positions so far. */
  seq?: number;
  positions?: string[];
  total?: number;
}

export interface AuditMetaDoc {
  _id: 'head' | 'checkpoint';
  seq: number;
  hash: string;
  /** checkpoint: the signed statement of where the chain starts. */
  jws?: string;
  at: Date;
}
