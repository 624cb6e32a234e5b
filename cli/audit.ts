// `keyflow audit list`: the audit trail, newest first, filtered (user, client,
// event or prefix, outcome, IP, time range), one JSON record per line as the
// admin API shows it (lib/audit/audit-json.ts); the cursor of the next page on
// stderr. A filter or cursor that cannot be read is a usage error (exit 2).
import { auditRecordJson, auditTime } from '../lib/audit/audit-json.js';
import { AuditFilterError, searchAudit, type AuditFilter } from '../lib/audit/audit-search.js';
import type { Store } from '../lib/store/db.js';
import { cliIo } from './io.js';
import { parseCommand, UsageError } from './usage.js';
import { optionsOf } from './commands.js';

/** An ISO 8601 date or time; a bare date is its UTC midnight. */
export function parseTime(flag: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const time = auditTime(value);
  if (!time) throw new UsageError(`--${flag} must be an ISO 8601 date or time, e.g. 2026-11-28 or 2026-11-28T10:00:00Z`);
  return time;
}

export function parseLimit(value: string | undefined, fallback: number, max: number): number {
  const limit = value === undefined ? fallback : Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > max) throw new UsageError(`--limit must be an integer from 1 to ${max}`);
  return limit;
}

async function list(store: Store, argv: string[]): Promise<void> {
  const { values } = parseCommand(argv, optionsOf('audit list'));
  const v = values as Record<string, string | undefined>;
  const limit = parseLimit(v.limit, 100, 1000);
  if (v.outcome !== undefined && v.outcome !== 'success' && v.outcome !== 'failure') throw new UsageError('--outcome must be success or failure');
  const filter: AuditFilter = {
    ...(v.user ? { userId: v.user } : {}),
    ...(v.client ? { clientId: v.client } : {}),
    ...(v.event ? { event: v.event } : {}),
    ...(v.outcome ? { outcome: v.outcome } : {}),
    ...(v.ip ? { ip: v.ip } : {}),
    ...(v.since ? { since: parseTime('since', v.since) } : {}),
    ...(v.until ? { until: parseTime('until', v.until) } : {}),
  };
  try {
    const page = await searchAudit(store, filter, limit, v.cursor);
    const io = cliIo();
    for (const r of page.records) io.stdout(JSON.stringify(auditRecordJson(r)) + '\n');
    if (page.next) io.stderr(`keyflow: more records: --cursor ${page.next}\n`);
  } catch (err) {
    if (err instanceof AuditFilterError)
      throw new UsageError(err.message.replace(/^no audit event/, '--event: no audit event').replace(/^cursor:/, '--cursor:'));
    throw err;
  }
}

export async function auditCommand(store: Store, sub: string | undefined, argv: string[]): Promise<void> {
  if (sub === 'list') return list(store, argv);
  throw new UsageError(`unknown command: audit ${sub ?? ''}`.trim());
}
