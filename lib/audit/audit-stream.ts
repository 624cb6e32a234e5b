// AUDIT_STREAM: every sealed record as one JSON line, in chain order, to
// stdout or appended to a file, for a log shipper (Promtail/Alloy, Filebeat,
// the Splunk forwarder: docs/audit.md). Written by the sealer after a batch is
// done, so a line names its place in the chain; a batch whose seal was
// resumed after a crash may be written twice (the same `position`).
import fs from 'node:fs';
import type { AuditBatchDoc, SealedAuditDoc } from '../model/audit-storage.js';

export type AuditStreamWriter = (records: SealedAuditDoc[], batch: AuditBatchDoc) => void;

/** The line of one sealed record: its fields, its position, and the batch hash it is chained under. */
export function streamLine(record: SealedAuditDoc, batch: Pick<AuditBatchDoc, 'hash'>): string {
  const { _id, ...fields } = record;
  return JSON.stringify({ ...fields, position: _id, batch_hash: batch.hash });
}

/** The writer for an AUDIT_STREAM setting; null when off. */
export function auditStream(setting: string, stdout: (text: string) => void = (t) => process.stdout.write(t)): AuditStreamWriter | null {
  if (setting === 'off') return null;
  const write = setting === 'stdout' ? stdout : (text: string) => fs.appendFileSync(setting, text, { mode: 0o600 });
  return (records, batch) => {
    if (records.length) write(records.map((r) => streamLine(r, batch) + '\n').join(''));
  };
}
