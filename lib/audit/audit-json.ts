// An audit record as the admin API and the CLI's `audit list` show it: the
// API's snake_case, the actor as admin webhooks carry it, every field present
// (null when unknown), and the time range filters both take.
import type { FoundAuditRecord } from './audit-search.js';

/** One record, every field: what happened, to whom, by whom, from where, and its place in the chain (null until sealed). */
export function auditRecordJson(r: FoundAuditRecord) {
  return {
    id: r.id,
    time: r.time.toISOString(),
    event: r.event,
    stream: r.stream,
    outcome: r.outcome,
    actor: {
      type: r.actor.type,
      ...(r.actor.userId ? { user_id: r.actor.userId } : {}),
      ...(r.actor.clientId ? { client_id: r.actor.clientId } : {}),
    },
    subject: {
      ...(r.subject.userId ? { user_id: r.subject.userId } : {}),
      ...(r.subject.clientId ? { client_id: r.subject.clientId } : {}),
      ...(r.subject.teamId ? { team_id: r.subject.teamId } : {}),
      ...(r.subject.keyId ? { key_id: r.subject.keyId } : {}),
    },
    ip: r.ip ?? null,
    user_agent: r.userAgent ?? null,
    request_id: r.requestId ?? null,
    data: r.data,
    position: r.position,
  };
}

/**
 * A time filter's value: an ISO 8601 date (its UTC midnight) or date and time
 * with a zone (`Z` or an offset); null for anything else.
 */
export function auditTime(value: string): Date | null {
  const time = /^\d{4}-\d{2}-\d{2}$/.test(value)
    ? new Date(`${value}T00:00:00Z`)
    : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(value)
      ? new Date(value)
      : null;
  return time && !Number.isNaN(time.getTime()) ? time : null;
}
