// /admin/audit: the audit log with filters (lib/store/audit-query.ts). A
// filter that cannot be read is named in a 400 page, never guessed at.
import { Router, type Request, type Response } from 'express';
import { ADMIN_EVENTS, AUDIT_EVENTS, type AuditRecord } from '../../../lib/model/webhook-events.js';
import { findAuditRecords, type AuditFilter } from '../../../lib/store/audit-query.js';
import { fieldsOf, formText } from '../../http/input.js';
import { adminAuditPage, type AuditQuery } from '../../views/admin/audit.js';
import { errorNotice } from '../../views/teams.js';
import { offsetOf, PAGE_SIZE, type AdminConsoleDeps } from './admin-page.js';
import { ADMIN_PAGES } from '../../paths.js';

const Query = fieldsOf({ event: formText, actor: formText, from: formText, to: formText });
const EVENTS: readonly string[] = [...ADMIN_EVENTS, ...AUDIT_EVENTS];
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

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
    if (EVENTS.includes(q.event)) filter.name = q.event as AuditRecord['name'];
    else problems.push('event: not an audited event');
  }
  if (q.actor.trim() !== '') {
    if (q.actor.length <= 100) filter.actorUserId = q.actor.trim();
    else problems.push('actor: a user id is at most 100 characters');
  }
  for (const [field, value] of [
    ['from', q.from],
    ['to', q.to],
  ] as const) {
    if (value === '') continue;
    const start = dayStart(value);
    if (!start) problems.push(`${field}: must be a date (YYYY-MM-DD)`);
    else if (field === 'from') filter.from = start;
    else filter.before = new Date(start.getTime() + DAY_MS);
  }
  return problems.length ? { problems } : { filter };
}

export function adminAuditRoutes(deps: AdminConsoleDeps): Router {
  const router = Router();
  router.get(ADMIN_PAGES.audit, async (req: Request, res: Response) => {
    const query = Query.parse(req.query);
    const offset = offsetOf(req);
    const read = filterOf(query);
    if ('problems' in read)
      return adminAuditPage(res, { query, records: [], offset: 0, size: PAGE_SIZE, hasMore: false }, errorNotice(read.problems.join('; ')), 400);
    const found = await findAuditRecords(deps.store, read.filter, PAGE_SIZE + 1, offset);
    adminAuditPage(res, { query, records: found.slice(0, PAGE_SIZE), offset, size: PAGE_SIZE, hasMore: found.length > PAGE_SIZE });
  });
  return router;
}
