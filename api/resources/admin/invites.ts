// Invitations at /api/oauth/me/admin/invites, for a site admin's token (the
// guard: api/resources/admin/admin-area.ts): list (`admin:invites:read`), create
// (`admin:invites:create`; the answer carries the link, the only time it is
// shown) and revoke (`admin:invites:delete`). The changes and their events:
// lib/admin/invite-changes.ts.
import express, { Router } from 'express';
import { z } from 'zod';
import { inviteJson } from '../../../lib/model/invites.js';
import { createInvite, namedInvite, revokeInvite } from '../../../lib/admin/invite-changes.js';
import { listInvites } from '../../../lib/store/invites.js';
import { tokenActor } from '../../../lib/webhooks/event-sources.js';
import { methodNotAllowed } from '../../http/errors.js';
import { adminScopes } from './admin-area.js';
import { fieldsOf } from '../../http/input.js';
import type { ApiContext } from '../../context.js';
import { jsonBody, parse, refusalsAnswered, send } from '../../http/json-api.js';
import { ADMIN_RESOURCES } from '../../paths.js';
import { currentDate } from '../../../lib/runtime/clock.js';

const BASE = ADMIN_RESOURCES.invites;

/** A query number: digits only (no sign, exponent or space), then bounded. */
const digits = (max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().max(max, `must be at most ${max}`))
    .default(fallback);
const InvitePage = fieldsOf({ limit: digits(500, 100).refine((n) => n >= 1, 'must be at least 1'), offset: digits(100_000_000, 0) });

export type AdminInvitesApiDeps = Pick<ApiContext, 'issuer' | 'keyring' | 'store' | 'events' | 'audit'>;

export function adminInvitesApiRoutes(deps: AdminInvitesApiDeps): Router {
  const router = Router();
  const json = express.json({ limit: '16kb' });

  router.get(
    BASE,
    adminScopes(deps, 'invites:read'),
    refusalsAnswered(async (req, res) => {
      const { limit, offset } = parse(InvitePage, req.query);
      const now = currentDate();
      send(res, 200, { invites: (await listInvites(deps.store, limit, offset)).map((i) => inviteJson(i, now)), limit, offset });
    }),
  );
  router.post(
    BASE,
    adminScopes(deps, 'invites:create'),
    json,
    refusalsAnswered(async (req, res) => {
      // An empty body is allowed (all defaults); a body that is there must be JSON.
      const empty = req.headers['content-type'] === undefined && Number(req.headers['content-length'] ?? 0) === 0 && !req.headers['transfer-encoding'];
      const body = empty ? {} : jsonBody(req, z.unknown());
      const { invite, link } = await createInvite(deps, body, tokenActor(req));
      res.set('Location', `${deps.issuer}${BASE}/${encodeURIComponent(invite._id)}`);
      send(res, 201, { ...inviteJson(invite), link });
    }),
  );
  router.all(BASE, methodNotAllowed(['GET', 'POST']));

  const one = `${BASE}/:id`;
  router.delete(
    one,
    adminScopes(deps, 'invites:delete'),
    refusalsAnswered(async (req, res) => {
      await revokeInvite(deps, await namedInvite(deps.store, String(req.params.id ?? '')), tokenActor(req));
      send(res, 204);
    }),
  );
  router.all(one, methodNotAllowed(['DELETE']));
  return router;
}
