// The caller's teams at /api/oauth/me/teams: every team the token's user
// belongs to (directly or through an ancestor team), with the user's role.
// `teams:read` lists and reads, `teams:create` creates, `teams:write` changes
// settings, members and groups (and accepts or declines the user's own
// invitations), `teams:delete` deletes. What the user may do
// on each team is their current effective role's (lib/teams/team-changes.ts).
import express, { Router } from 'express';
import { MAX_LISTED_TEAMS, NewTeamInput, userTeamJson } from '../../../lib/model/teams.js';
import { userTeams } from '../../../lib/teams/membership.js';
import { createTeam } from '../../../lib/teams/team-changes.js';
import { acceptInvitation, declineInvitation, receivedInvitations } from '../../../lib/teams/invitations.js';
import { receivedInvitationJson } from '../../../lib/model/team-invitations.js';
import { tokenActor } from '../../../lib/webhooks/event-sources.js';
import { invitationIdOf } from './team-input.js';
import { methodNotAllowed } from '../../http/errors.js';
import { requireAccessToken } from '../../protocol/shared/bearer.js';
import type { ApiContext } from '../../context.js';
import { teamRoutes, userTierParts, type TeamNeed, type TeamTier } from './one-team.js';
import { jsonBody, send, refusalsAnswered } from '../../http/json-api.js';
import { RESOURCES } from '../../paths.js';

const BASE = RESOURCES.teams;

const SCOPE_FOR: Record<TeamNeed, string> = {
  read: 'teams:read',
  'member:read': 'teams:read',
  write: 'teams:write',
  'member:write': 'teams:write',
  delete: 'teams:delete',
};

export type TeamsApiDeps = Pick<ApiContext, 'issuer' | 'keyring' | 'store' | 'events' | 'audit'>;

export function teamsApiRoutes(deps: TeamsApiDeps): Router {
  const router = Router();
  const tier: TeamTier = {
    ...userTierParts(deps),
    guard: (need) => [requireAccessToken(deps, [SCOPE_FOR[need]])],
    withProfiles: () => false,
    moveRefusal: null,
    groups: true,
  };

  router.get(
    BASE,
    requireAccessToken(deps, ['teams:read']),
    refusalsAnswered(async (req, res) => {
      const teams = await userTeams(deps.store, req.access!.userId, MAX_LISTED_TEAMS);
      send(res, 200, { teams: teams.map(userTeamJson) });
    }),
  );
  router.post(
    BASE,
    requireAccessToken(deps, ['teams:create']),
    express.json({ limit: '64kb' }),
    refusalsAnswered(async (req, res) => {
      const team = await createTeam(deps, tier.actor(req), jsonBody(req, NewTeamInput));
      res.set('Location', `${deps.issuer}${BASE}/${encodeURIComponent(team._id)}`);
      send(res, 201, await tier.teamJson(req, team));
    }),
  );
  router.all(BASE, methodNotAllowed(['GET', 'POST']));

  // The caller's own invitations: before the team routes, whose `:teamId` would take "invitations".
  const received = `${BASE}/invitations`;
  router.get(
    received,
    requireAccessToken(deps, ['teams:read']),
    refusalsAnswered(async (req, res) => {
      const list = await receivedInvitations(deps.store, req.access!.userId);
      send(res, 200, { invitations: list.map(({ invitation, team }) => receivedInvitationJson(invitation, team)) });
    }),
  );
  router.all(received, methodNotAllowed(['GET']));
  router.post(
    `${received}/:invitationId/accept`,
    requireAccessToken(deps, ['teams:write']),
    refusalsAnswered(async (req, res) => {
      const { team } = await acceptInvitation(deps, req.access!.userId, invitationIdOf(req), tokenActor(req));
      send(res, 200, await tier.teamJson(req, team));
    }),
  );
  router.all(`${received}/:invitationId/accept`, methodNotAllowed(['POST']));
  router.delete(
    `${received}/:invitationId`,
    requireAccessToken(deps, ['teams:write']),
    refusalsAnswered(async (req, res) => {
      await declineInvitation(deps, req.access!.userId, invitationIdOf(req), tokenActor(req));
      send(res, 204);
    }),
  );
  router.all(`${received}/:invitationId`, methodNotAllowed(['DELETE']));

  teamRoutes(router, deps, tier, BASE);
  return router;
}
