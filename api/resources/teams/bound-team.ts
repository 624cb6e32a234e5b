// One team at /api/oauth/me/team/:teamId, for a token whose scope binds a
// permission to that team at consent (`team:<id>:read`, `team:<id>:write`,
// …): the app sees this team and nothing else. The token's user still acts
// with their current role on the team, checked on every request, and a bound
// scope never moves the team (that touches a second team).
import { Router, type Request, type RequestHandler } from 'express';
import { parseBoundTeamScope, boundTeamScope } from '../../../lib/model/scopes.js';
import { TeamId } from '../../../lib/model/teams.js';
import type { SingleTeamPermission } from '../../../lib/model/team-roles.js';
import { sendError } from '../../http/errors.js';
import { requireAccessToken, requireScopes } from '../../protocol/shared/bearer.js';
import type { ApiContext } from '../../context.js';
import { teamRoutes, userTierParts, type TeamNeed } from './one-team.js';
import { RESOURCES } from '../../paths.js';

const BASE = RESOURCES.boundTeam;

/** The bound permissions that allow each need, the first one named in a refusal's challenge. */
const PERMISSIONS_FOR: Record<TeamNeed, SingleTeamPermission[]> = {
  read: ['read'],
  write: ['write'],
  delete: ['delete'],
  'member:read': ['member:read', 'member:profile:read'],
  'member:write': ['member:write'],
};

/** Whether the token holds `permission` bound to this team. */
const holds = (req: Request, teamId: string, permission: SingleTeamPermission): boolean =>
  req.access!.scope.some((s) => {
    const bound = parseBoundTeamScope(s);
    return bound !== null && bound.teamId === teamId && bound.permission === permission;
  });

export type TeamApiDeps = Pick<ApiContext, 'issuer' | 'keyring' | 'store' | 'events' | 'audit'>;

export function teamApiRoutes(deps: TeamApiDeps): Router {
  const router = Router();
  const authenticated = requireAccessToken(deps, []);

  /** The team id is checked before it is named in a challenge; a token bound to another team is refused as any missing scope. */
  const boundTo =
    (need: TeamNeed): RequestHandler =>
    (req, res, next) => {
      const id = TeamId.safeParse(req.params.teamId);
      if (!id.success) return sendError(res, 400, 'invalid_request', 'team id: must be a team id');
      const permissions = PERMISSIONS_FOR[need];
      const held = permissions.find((p) => holds(req, id.data, p)) ?? permissions[0]!;
      return requireScopes(deps, [boundTeamScope(id.data, held)])(req, res, next);
    };

  teamRoutes(
    router,
    deps,
    {
      ...userTierParts(deps),
      guard: (need) => [authenticated, boundTo(need)],
      withProfiles: (req) => holds(req, String(req.params.teamId), 'member:profile:read'),
      moveRefusal: 'moving a team needs teams:write',
      groups: true,
    },
    BASE,
  );
  return router;
}
