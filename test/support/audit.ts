// The audit trail as tests read it: every record, pending or sealed, matched
// on its stored fields with a MongoDB filter (sealed ones by MongoDB, a scan;
// pending ones, grouped in the inbox's documents, by sift, the same query
// language in memory: fine for a test's data).
import type { Filter } from 'mongodb';
import siftModule from 'sift';
import type { AuditEntry } from '../../lib/model/audit-events.js';
import type { Store } from '../../lib/store/db.js';
import type { SealedAuditDoc } from '../../lib/model/audit-storage.js';
import { eventually } from './harness.js';

// A CommonJS package: its function is the default export's `default` too, which is what its types describe.
const sift = siftModule.default;

/** Records matching `filter` (e.g. `{ event: 'login', 'subject.userId': id }`), oldest first, each once. */
export async function auditRecords(store: Store, filter: Filter<AuditEntry> = {}): Promise<AuditEntry[]> {
  const [groups, sealed] = await Promise.all([store.auditPending.find({}).toArray(), store.auditRecords.find(filter as Filter<SealedAuditDoc>).toArray()]);
  const pending = groups.flatMap((g) => g.records).filter(sift(filter as Parameters<typeof sift>[0]));
  // A record the sealer is moving is in both for a moment: its sealed copy is the one kept.
  const byId = new Map<string, AuditEntry>();
  for (const r of pending) byId.set(r.id, r);
  for (const { _id, ...r } of sealed) byId.set(r.id ?? _id, { ...r, id: r.id ?? _id });
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
