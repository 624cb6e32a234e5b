// The audit trail as tests read it: every record, pending or sealed, matched
// on its stored fields with a MongoDB filter (a scan; fine for a test's data).
import type { Filter } from 'mongodb';
import type { AuditEntry } from '../../lib/model/audit-events.js';
import type { Store } from '../../lib/store/db.js';
import type { PendingAuditDoc, SealedAuditDoc } from '../../lib/model/audit-storage.js';
import { eventually } from './harness.js';

/** Records matching `filter` (e.g. `{ event: 'login', 'subject.userId': id }`), oldest first, each once. */
export async function auditRecords(store: Store, filter: Filter<AuditEntry> = {}): Promise<AuditEntry[]> {
  const [pending, sealed] = await Promise.all([
    store.auditPending.find(filter as Filter<PendingAuditDoc>).toArray(),
    store.auditRecords.find(filter as Filter<SealedAuditDoc>).toArray(),
  ]);
  // A record the sealer is moving is in both for a moment: its sealed copy is the one kept.
  const byId = new Map<string, AuditEntry>();
  for (const { _id, ...r } of [...pending, ...sealed]) byId.set(r.id ?? _id, { ...r, id: r.id ?? _id });
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Waits for the records matching `filter` (a record noted without waiting is
 * written within moments) and returns them: at least `count`, oldest first.
 */
export async function awaitAuditRecords(store: Store, filter: Filter<AuditEntry>, count = 1): Promise<AuditEntry[]> {
  let found: AuditEntry[] = [];
  await eventually(async () => {
    found = await auditRecords(store, filter);
    expect(found.length).toBeGreaterThanOrEqual(count);
  }, 10_000);
  return found;
}

/** The one newest record matching `filter`, waited for. */
export async function awaitAuditRecord(store: Store, filter: Filter<AuditEntry>): Promise<AuditEntry> {
  const found = await awaitAuditRecords(store, filter);
  return found[found.length - 1]!;
}
