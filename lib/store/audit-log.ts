// The audit log (`audit_log`): every admin event and audit-only event, append-only (never
// updated or deleted by Keyflow), read by the operator CLI.
import type { AuditRecord } from '../model/webhook-events.js';
import type { Store } from './db.js';

export const auditLog = (store: Store) => store.auditLog;

export async function appendAuditRecord(store: Store, record: AuditRecord): Promise<void> {
  await store.auditLog.insertOne(record);
}

/** The audit log, newest first (optionally one event name); a scan on FerretDB v1, for the operator CLI. */
export function recentAuditRecords(store: Store, limit: number, name?: string): Promise<AuditRecord[]> {
  return store.auditLog
    .find(name ? { name: name as AuditRecord['name'] } : {})
    .sort({ createdAt: -1, _id: -1 })
    .limit(limit)
    .toArray();
}
