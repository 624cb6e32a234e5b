// Every team on the instance at /api/oauth/site/teams, for a site admin's
// token with `site:team:read`, `site:team:write` or `site:team:delete`. The
// token's user must still be a site admin (adminArea, api/resources/admin/admin-area.ts,
// before any scope check: a demoted admin's tokens stop working here at once)
// and then acts as an owner of every team; deleting a team is also an admin
// event.
import { Router } from 'express';
import { z } from 'zod';
import { teamJson } from '../../../lib/model/teams.js';
import { listAllTeams } from '../../../lib/store/teams.js';
import { tokenActor } from '../../../lib/webhooks/event-sources.js';
import { methodNotAllowed } from '../../http/errors.js';
import { fieldsOf } from '../../http/input.js';
import { requireScopes } from '../../protocol/shared/bearer.js';
import type { ApiContext } from '../../context.js';
import { teamRoutes, type TeamNeed } from './one-team.js';
import { parse, send, refusalsAnswered } from '../../http/json-api.js';
import { ADMIN_RESOURCES } from '../../paths.js';

const BASE = ADMIN_RESOURCES.siteTeams;

const SCOPE_FOR: Record<TeamNeed, string> = {
  read: 'site:team:read',
  'member:read': 'site:team:read',
  write: 'site:team:write',
  'member:write': 'site:team:write',
  delete: 'site:team:delete',
};

/** A whole number in a query string, within bounds (no signs, exponents or spaces). */
const count = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

const Page = fieldsOf({ limit: count(1, 500).default(100), offset: count(0, 100_000_000).default(0) });

export type SiteTeamsApiDeps = Pick<ApiContext, 'issuer' | 'keyring' | 'store' | 'events' | 'audit'>;

export function siteTeamsApiRoutes(deps: SiteTeamsApiDeps): Router {
  const router = Router();

  // The token and its user's role were checked by adminArea: the scope is left.
  const guard = (need: TeamNeed) => [requireScopes(deps, [SCOPE_FOR[need]])];

  router.get(
    BASE,
    guard('read'),
    refusalsAnswered(async (req, res) => {
      const { limit, offset } = parse(Page, req.query);
      send(res, 200, { teams: (await listAllTeams(deps.store, limit, offset)).map(teamJson) });
    }),
  );
  router.all(BASE, methodNotAllowed(['GET']));

  teamRoutes(
    router,
    deps,
    {
      guard,
      actor: (req) => ({ userId: req.access!.userId, instanceWide: true, event: tokenActor(req) }),
      teamJson: (_req, team) => Promise.resolve(teamJson(team)),
      withProfiles: () => false,
      moveRefusal: null,
      groups: false,
    },
    BASE,
  );
  return router;
}
