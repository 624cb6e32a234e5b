// The endpoints of one team (`…/:teamId`, its members, invitations and
// groups), shared by the three team APIs (my-teams.ts, bound-team.ts,
// site-teams.ts). A tier says how its tokens are checked (a scope of the
// caller's teams, a scope bound to this team, a site scope held by a site
// admin), who acts, and how a team is shown; the handlers, and the role checks
// inside lib/teams/team-changes.ts, are the same for all three.
import express, { type Request, type RequestHandler, type Router } from 'express';
import {
  MemberChanges,
  NewGroupInput,
  NewMemberInput,
  TeamChanges,
  teamJson,
  userTeamJson,
  type TeamDoc,
  type TeamMemberDoc,
} from '../../../lib/model/teams.js';
import { ValidationError } from '../../../lib/model/errors.js';
import { membersOf } from '../../../lib/store/teams.js';
import { profilesOf, type UserProfile } from '../../../lib/store/users-by-id.js';
import { userTeam } from '../../../lib/teams/membership.js';
import { tokenActor } from '../../../lib/webhooks/event-sources.js';
import { changeTeam, deleteTeam, teamFor, userActor, type TeamActor, type TeamDeps } from '../../../lib/teams/team-changes.js';
import { addGroup, addMember, changeMember, removeGroup, removeTeamMember } from '../../../lib/teams/member-changes.js';
import { inviteMember, revokeInvitation, teamInvitations } from '../../../lib/teams/invitations.js';
import { invitationJson } from '../../../lib/model/team-invitations.js';
import { methodNotAllowed } from '../../http/errors.js';
import { jsonBody, send, refusalsAnswered } from '../../http/json-api.js';
import { cascadeOf, pathIds } from './team-input.js';

/** What a request to a team's endpoints needs of its token (each tier maps it to its scopes). */
export type TeamNeed = 'read' | 'write' | 'delete' | 'member:read' | 'member:write';

export interface TeamTier {
  /** Authenticates the token and checks it may do `need` on the team in the path; answers a refusal itself. */
  guard(need: TeamNeed): RequestHandler[];
  /** Who acts, once the guard has passed. */
  actor(req: Request): TeamActor;
  /** A team as this tier shows it. */
  teamJson(req: Request, team: TeamDoc): Promise<Record<string, unknown>>;
  /** Whether members are listed with their names, usernames and pictures. */
  withProfiles(req: Request): boolean;
  /** Why moving a team (`parent_id`) is refused here; null when this tier may move teams. */
  moveRefusal: string | null;
  /** Whether this tier adds and removes the team's groups. */
  groups: boolean;
}

/** A membership as the APIs show it; with `profile`, who the member is. */
function memberJson(m: TeamMemberDoc, profile?: UserProfile | null): Record<string, unknown> {
  const who = profile ? { name: profile.name, preferred_username: profile.username, picture: profile.picture } : {};
  return { user_id: m.userId, role: m.role, groups: m.groups, added_at: m.addedAt.toISOString(), ...who };
}

/** Registers the endpoints of one team under `base` (`${base}/:teamId`, its members, invitations and groups). */
export function teamRoutes(router: Router, deps: TeamDeps, tier: TeamTier, base: string): void {
  const json = express.json({ limit: '64kb' });
  const one = `${base}/:teamId`;

  router.get(
    one,
    tier.guard('read'),
    refusalsAnswered(async (req, res) => {
      const { team } = await teamFor(deps.store, tier.actor(req), pathIds(req).teamId, 'read');
      send(res, 200, await tier.teamJson(req, team));
    }),
  );
  router.patch(
    one,
    tier.guard('write'),
    json,
    refusalsAnswered(async (req, res) => {
      const { teamId } = pathIds(req);
      const changes = jsonBody(req, TeamChanges);
      if (changes.parent_id !== undefined && tier.moveRefusal !== null) throw new ValidationError([`parent_id: ${tier.moveRefusal}`]);
      send(res, 200, await tier.teamJson(req, await changeTeam(deps, tier.actor(req), teamId, changes)));
    }),
  );
  router.delete(
    one,
    tier.guard('delete'),
    refusalsAnswered(async (req, res) => {
      const { teamId } = pathIds(req);
      await deleteTeam(deps, tier.actor(req), teamId, cascadeOf(req));
      send(res, 204);
    }),
  );
  router.all(one, methodNotAllowed(['GET', 'PATCH', 'DELETE']));

  const members = `${one}/members`;
  router.get(
    members,
    tier.guard('member:read'),
    refusalsAnswered(async (req, res) => {
      const { team } = await teamFor(deps.store, tier.actor(req), pathIds(req).teamId, 'read');
      const list = await membersOf(deps.store, team._id);
      const profiles = tier.withProfiles(req)
        ? await profilesOf(
            deps.store,
            list.map((m) => m.userId),
          )
        : null;
      send(res, 200, { members: list.map((m) => memberJson(m, profiles && (profiles.get(m.userId) ?? null))) });
    }),
  );
  // A user invites (202: the invitee accepts or not); an instance-wide actor adds the member at once (201).
  router.post(
    members,
    tier.guard('member:write'),
    json,
    refusalsAnswered(async (req, res) => {
      const { teamId } = pathIds(req);
      const actor = tier.actor(req);
      const input = jsonBody(req, NewMemberInput);
      if (actor.instanceWide) send(res, 201, memberJson(await addMember(deps, actor, teamId, input)));
      else send(res, 202, invitationJson(await inviteMember(deps, actor, teamId, input)));
    }),
  );
  router.all(members, methodNotAllowed(['GET', 'POST']));

  // Pending invitations name whom they were sent to: listed with the scope that sends them.
  const invitations = `${one}/invitations`;
  router.get(
    invitations,
    tier.guard('member:write'),
    refusalsAnswered(async (req, res) => {
      const list = await teamInvitations(deps, tier.actor(req), pathIds(req).teamId);
      send(res, 200, { invitations: list.map(invitationJson) });
    }),
  );
  router.all(invitations, methodNotAllowed(['GET']));
  const invitation = `${invitations}/:invitationId`;
  router.delete(
    invitation,
    tier.guard('member:write'),
    refusalsAnswered(async (req, res) => {
      const { teamId, invitationId } = pathIds(req);
      await revokeInvitation(deps, tier.actor(req), teamId, invitationId!);
      send(res, 204);
    }),
  );
  router.all(invitation, methodNotAllowed(['DELETE']));

  const member = `${members}/:userId`;
  router.patch(
    member,
    tier.guard('member:write'),
    json,
    refusalsAnswered(async (req, res) => {
      const { teamId, userId } = pathIds(req);
      send(res, 200, memberJson(await changeMember(deps, tier.actor(req), teamId, userId!, jsonBody(req, MemberChanges))));
    }),
  );
  router.delete(
    member,
    tier.guard('member:write'),
    refusalsAnswered(async (req, res) => {
      const { teamId, userId } = pathIds(req);
      await removeTeamMember(deps, tier.actor(req), teamId, userId!);
      send(res, 204);
    }),
  );
  router.all(member, methodNotAllowed(['PATCH', 'DELETE']));

  if (!tier.groups) return;
  const groups = `${one}/groups`;
  router.post(
    groups,
    tier.guard('write'),
    json,
    refusalsAnswered(async (req, res) => {
      const { teamId } = pathIds(req);
      send(res, 201, await tier.teamJson(req, await addGroup(deps, tier.actor(req), teamId, jsonBody(req, NewGroupInput))));
    }),
  );
  router.all(groups, methodNotAllowed(['POST']));
  const group = `${groups}/:slug`;
  router.delete(
    group,
    tier.guard('write'),
    refusalsAnswered(async (req, res) => {
      const { teamId, slug } = pathIds(req);
      await removeGroup(deps, tier.actor(req), teamId, slug!);
      send(res, 204);
    }),
  );
  router.all(group, methodNotAllowed(['DELETE']));
}

/** Who acts and how a team is shown in the two tiers where a user acts with their own role. */
export function userTierParts(deps: Pick<TeamDeps, 'store'>): Pick<TeamTier, 'actor' | 'teamJson'> {
  return {
    actor: (req) => userActor(req.access!.userId, tokenActor(req)),
    teamJson: async (req, team) => {
      const standing = await userTeam(deps.store, req.access!.userId, team);
      return standing ? userTeamJson(standing) : teamJson(team);
    },
  };
}
