// The audit trail at /api/oauth/me/admin/audit, for a site admin's token
// (adminArea, then adminScopes: `admin:audit:read`). GET, newest first, one
// page at a time, with the filters of the console and the CLI
// (lib/audit/audit-search.ts): event (a name or a prefix such as `user.*`),
// user, client, outcome, ip, since/until (ISO 8601), limit, and the cursor of
// the page before. Each record as lib/audit/audit-json.ts shows it; a filter
// or cursor that cannot be read is a 400 naming it.
import { Router } from 'express';
import { z } from 'zod';
import { auditRecordJson, auditTime } from '../../../lib/audit/audit-json.js';
import { AuditFilterError, isAuditCursor, searchAudit, type AuditFilter } from '../../../lib/audit/audit-search.js';
import { auditEventsMatching } from '../../../lib/model/audit-events.js';
import { ValidationError } from '../../../lib/model/errors.js';
import { methodNotAllowed } from '../../http/errors.js';
import { fieldsOf } from '../../http/input.js';
import { parse, refusalsAnswered, send } from '../../http/json-api.js';
import { adminScopes } from './admin-area.js';
import type { ApiContext } from '../../context.js';
import { ADMIN_RESOURCES } from '../../paths.js';

const BASE = ADMIN_RESOURCES.audit;
const MAX_LIMIT = 500;

const id = z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
const time = z
  .string()
  .transform(
    (v, ctx) =>
      auditTime(v) ??
      (ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 date or time with a zone, e.g. 2026-11-28 or 2026-11-28T10:00:00Z' }), z.NEVER),
  );

const AuditQuery = fieldsOf({
  event: z
    .string()
    .max(100)
    .refine((e) => auditEventsMatching(e).length > 0, 'not an audited event or prefix (such as user.*)')
    .optional(),
  user: id.optional(),
  client: id.optional(),
  outcome: z.enum(['success', 'failure'], { message: 'must be success or failure' }).optional(),
  ip: id.optional(),
  since: time.optional(),
  until: time.optional(),
  limit: z
    .string()
    .regex(/^\d{1,4}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().min(1, 'must be at least 1').max(MAX_LIMIT, `must be at most ${MAX_LIMIT}`))
    .default(100),
  cursor: z.string().max(100).refine(isAuditCursor, 'not one this search gave').optional(),
});

export type AdminAuditApiDeps = Pick<ApiContext, 'issuer' | 'keyring' | 'store'>;

export function adminAuditApiRoutes(deps: AdminAuditApiDeps): Router {
  const router = Router();
  router.get(
    BASE,
    adminScopes(deps, 'audit:read'),
    refusalsAnswered(async (req, res) => {
      const q = parse(AuditQuery, req.query);
      const filter: AuditFilter = {
        ...(q.event ? { event: q.event } : {}),
        ...(q.user ? { userId: q.user } : {}),
        ...(q.client ? { clientId: q.client } : {}),
        ...(q.outcome ? { outcome: q.outcome } : {}),
        ...(q.ip ? { ip: q.ip } : {}),
        ...(q.since ? { since: q.since } : {}),
        ...(q.until ? { until: q.until } : {}),
      };
      try {
        const page = await searchAudit(deps.store, filter, q.limit, q.cursor);
        send(res, 200, { records: page.records.map(auditRecordJson), next_cursor: page.next });
      } catch (err) {
        // The search's own refusals (what the query check let through) are input problems too.
        if (err instanceof AuditFilterError) throw new ValidationError([err.message]);
        throw err;
      }
    }),
  );
  router.all(BASE, methodNotAllowed(['GET']));
  return router;
}
