// /admin/audit: the audit trail with filters (lib/audit/audit-search.ts) and
// cursor paging; /admin/audit/record?position=… one sealed record in full. A
// filter that cannot be read is named in a 400 page, never guessed at.
import { Router, type Request, type Response } from 'express';
import { AuditFilterError, searchAudit, type AuditFilter } from '../../../lib/audit/audit-search.js';
import { auditEventsMatching } from '../../../lib/model/audit-events.js';
import { fieldsOf, formText } from '../../http/input.js';
import { adminAuditPage, type AuditQuery } from '../../views/admin/audit.js';
import { errorNotice } from '../../views/teams.js';
import { PAGE_SIZE, type AdminConsoleDeps } from './admin-page.js';
import { ADMIN_PAGES } from '../../paths.js';

const Query = fieldsOf({ event: formText, user: formText, client: formText, outcome: formText, ip: formText, from: formText, to: formText, cursor: formText });
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
const ID_MAX = 200;

/** A YYYY-MM-DD date as the instant its UTC day starts, or null. */
function dayStart(value: string): Date | null {
  const d = DATE.test(value) ? new Date(`${value}T00:00:00Z`) : null;
  return d && !Number.isNaN(d.getTime()) ? d : null;
}

/** The filter of a query, or the problems of the fields that cannot be read. */
function filterOf(q: AuditQuery): { filter: AuditFilter } | { problems: string[] } {
  const problems: string[] = [];
  const filter: AuditFilter = {};
  if (q.event !== '') {
    if (auditEventsMatching(q.event).length) filter.event = q.event;
    else problems.push('event: not an audited event or prefix (such as login.*)');
  }
  for (const [field, key] of [
    ['user', 'userId'],
    ['client', 'clientId'],
    ['ip', 'ip'],
  ] as const) {
    const value = q[field].trim();
    if (value === '') continue;
    if (value.length <= ID_MAX) filter[key] = value;
    else problems.push(`${field}: at most ${ID_MAX} characters`);
  }
  if (q.outcome !== '') {
    if (q.outcome === 'success' || q.outcome === 'failure') filter.outcome = q.outcome;
    else problems.push('outcome: success or failure');
  }
  for (const [field, value] of [
    ['from', q.from],
    ['to', q.to],
  ] as const) {
    if (value === '') continue;
    const start = dayStart(value);
    if (!start) problems.push(`${field}: must be a date (YYYY-MM-DD)`);
    else if (field === 'from') filter.since = start;
    else filter.until = new Date(start.getTime() + DAY_MS);
  }
  return problems.length ? { problems } : { filter };
}

export function adminAuditRoutes(deps: AdminConsoleDeps): Router {
  const router = Router();
  router.get(ADMIN_PAGES.audit, async (req: Request, res: Response) => {
    const query = Query.parse(req.query);
    const read = filterOf(query);
    if ('problems' in read) return adminAuditPage(res, { query, records: [], next: null }, errorNotice(read.problems.join('; ')), 400);
    try {
      const page = await searchAudit(deps.store, read.filter, PAGE_SIZE, query.cursor || undefined);
      adminAuditPage(res, { query, records: page.records, next: page.next });
    } catch (err) {
      if (!(err instanceof AuditFilterError)) throw err;
      adminAuditPage(res, { query, records: [], next: null }, errorNotice(err.message), 400);
    }
  });
  return router;
}
