// `keyflow audit list`: the audit log (admin events, team changes, team and
// site scope grants), newest first, as JSON: what happened, when, by whom.
import { actorPayload, ADMIN_EVENTS, AUDIT_EVENTS, isAdminEvent } from '../lib/model/webhook-events.js';
import { recentAuditRecords } from '../lib/store/audit-log.js';
import type { Store } from '../lib/store/db.js';
import { parseCommand, print, UsageError } from './usage.js';
import { optionsOf } from './commands.js';

export async function auditCommand(store: Store, sub: string | undefined, argv: string[]): Promise<void> {
  if (sub !== 'list') throw new UsageError(`unknown command: audit ${sub ?? ''}`.trim());
  const { values } = parseCommand(argv, optionsOf('audit list'));
  const limit = values.limit === undefined ? 100 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit must be an integer from 1 to 1000');
  const event = values.event as string | undefined;
  if (event !== undefined && !isAdminEvent(event) && !(AUDIT_EVENTS as readonly string[]).includes(event))
    throw new UsageError(`--event must be an admin or audit event: ${[...ADMIN_EVENTS, ...AUDIT_EVENTS].join(', ')}`);
  const records = await recentAuditRecords(store, limit, event);
  // The actor as admin webhooks carry it (`data.actor`): snake_case, only what is known.
  print(records.map((r) => ({ id: r._id, event: r.name, at: r.createdAt, actor: actorPayload(r.actor), data: r.data })));
}
