// The audit log read with filters (the admin console): event name, the actor's
// user id, a time range; newest first, a page at a time. A scan on FerretDB v1,
// bounded by the page size.
import type { AuditRecord } from '../model/webhook-events.js';
import type { Store } from './db.js';

export interface AuditFilter {
  name?: AuditRecord['name'];
  actorUserId?: string;
  /** Records at or after this instant. */
  from?: Date;
  /** Records before this instant. */
  before?: Date;
}

export function findAuditRecords(store: Store, filter: AuditFilter, limit: number, skip = 0): Promise<AuditRecord[]> {
  const createdAt = { ...(filter.from ? { $gte: filter.from } : {}), ...(filter.before ? { $lt: filter.before } : {}) };
  return store.auditLog
    .find({
      ...(filter.name ? { name: filter.name } : {}),
      ...(filter.actorUserId ? { 'actor.userId': filter.actorUserId } : {}),
      ...(filter.from || filter.before ? { createdAt } : {}),
    })
    .sort({ createdAt: -1, _id: -1 })
    .skip(skip)
    .limit(limit)
    .toArray();
}
