// /account/teams: the signed-in user's teams in the browser — the list, the
// invitations to accept or decline and the new-team form, one team's page, its settings, deleting it and leaving it
// (members and groups: team-members.ts). Every change goes through
// lib/teams/team-changes.ts with the user as the actor, so the role rules and
// audit records are the ones the team APIs get. CSRF on every form.
import { Router, type Response } from 'express';
import { ConflictError, parseOrRefuse, refusalStatus, ValidationError } from '../../lib/model/errors.js';
import { MAX_LISTED_TEAMS, NewTeamInput, TeamChanges, TeamId } from '../../lib/model/teams.js';
import { userTeams } from '../../lib/teams/membership.js';
import { createTeam, changeTeam, deleteTeam, teamFor } from '../../lib/teams/team-changes.js';
import { removeTeamMember } from '../../lib/teams/member-changes.js';
import { InvitationId } from '../../lib/model/team-invitations.js';
import { acceptInvitation, declineInvitation, receivedInvitations } from '../../lib/teams/invitations.js';
import { findUsersByIds } from '../../lib/store/users-by-id.js';
import { sessionActor } from '../../lib/webhooks/event-sources.js';
import type { SafeHtml } from '../html/html.js';
import { csrfGuard, signedInUser, type SignedIn } from '../http/signed-in.js';
import { fieldsOf, formText, text } from '../http/input.js';
import { EMPTY_DRAFT, errorNotice, teamPath, teamsPage, type TeamDraft } from '../views/teams.js';
import { actorOf, parentChoices, showTeam, teamForm, teamFormRoute, type TeamsPageDeps } from './team-page.js';
import { teamMemberRoutes } from './team-members.js';
import { PAGES } from '../paths.js';

const NewTeamForm = fieldsOf({ name: formText, slug: formText, description: formText, parent_id: formText, member_groups: formText });
/** `parent_id` is absent when the form has no parent select (a role that may not move the team). */
const SettingsForm = fieldsOf({ name: formText, slug: formText, description: formText, member_groups: formText, parent_id: text });
const DeleteForm = fieldsOf({ confirm: formText, cascade: formText });
const ListQuery = fieldsOf({ parent: text });

export function teamsPageRoutes(deps: TeamsPageDeps): Router {
  const router = Router();

  async function listPage(res: Response, s: SignedIn, draft: TeamDraft, notice?: SafeHtml, status = 200): Promise<void> {
    const [received, teams, parents] = await Promise.all([
      receivedInvitations(deps.store, s.user._id),
      userTeams(deps.store, s.user._id, MAX_LISTED_TEAMS),
      parentChoices(deps.store, s.user._id),
    ]);
    const inviters = await findUsersByIds(
      deps.store,
      received.map((r) => r.invitation.invitedBy),
    );
    const invitations = received.map((r) => ({ ...r, inviter: inviters.get(r.invitation.invitedBy) }));
    teamsPage(res, s, { invitations, teams, parents, draft }, notice, status);
  }

  /** Accepting or declining one of the user's invitations: where it leads, or the list again with the refusal. */
  function invitationRoute(action: string, run: (s: SignedIn, invitationId: string) => Promise<string>): void {
    router.post(`${PAGES.teams}/invitations/:invitationId/${action}`, teamForm, async (req, res) => {
      const s = await signedInUser(deps, req, res);
      if (!s || !csrfGuard(req, res, s)) return;
      try {
        res.redirect(303, await run(s, parseOrRefuse(InvitationId, req.params.invitationId)));
      } catch (err) {
        const status = refusalStatus(err);
        if (status === null || !(err instanceof Error)) throw err;
        await listPage(res, s, EMPTY_DRAFT, errorNotice(err.message), status);
      }
    });
  }
  invitationRoute('accept', async (s, id) => teamPath((await acceptInvitation(deps, s.user._id, id, sessionActor(s.user._id))).team._id));
  invitationRoute('decline', async (s, id) => {
    await declineInvitation(deps, s.user._id, id, sessionActor(s.user._id));
    return PAGES.teams;
  });

  router.get(PAGES.teams, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    // "Create a child team" links here with the parent preselected.
    const parent = ListQuery.parse(req.query).parent;
    if (s) await listPage(res, s, { ...EMPTY_DRAFT, parentId: parent !== undefined && TeamId.safeParse(parent).success ? parent : '' });
  });

  router.post(PAGES.teams, teamForm, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s)) return;
    const body = NewTeamForm.parse(req.body);
    const draft: TeamDraft = {
      name: body.name,
      slug: body.slug,
      description: body.description,
      parentId: body.parent_id,
      memberGroups: body.member_groups === '1',
    };
    try {
      const input = parseOrRefuse(NewTeamInput, {
        name: body.name,
        slug: body.slug,
        description: body.description,
        parent_id: body.parent_id || null,
        member_groups_enabled: draft.memberGroups,
      });
      const team = await createTeam(deps, actorOf(s), input);
      res.redirect(303, teamPath(team._id));
    } catch (err) {
      const status = refusalStatus(err);
      if (status === null || !(err instanceof Error)) throw err;
      await listPage(res, s, draft, errorNotice(err.message), status);
    }
  });

  router.get(`${PAGES.teams}/:teamId`, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (s) await showTeam(deps, res, s, String(req.params.teamId));
  });

  teamFormRoute(router, deps, '/settings', async (req, s, teamId) => {
    const body = SettingsForm.parse(req.body);
    const changes = parseOrRefuse(TeamChanges, {
      name: body.name,
      slug: body.slug,
      description: body.description,
      member_groups_enabled: body.member_groups === '1',
      ...(body.parent_id === undefined ? {} : { parent_id: body.parent_id || null }),
    });
    // Only what differs is changed, so the audit record names only real changes.
    const actor = actorOf(s);
    const { team } = await teamFor(deps.store, actor, teamId, 'update');
    const now: Record<string, unknown> = {
      name: team.name,
      slug: team.slug,
      description: team.description,
      parent_id: team.parentId,
      member_groups_enabled: team.memberGroupsEnabled,
    };
    const differing = Object.entries(changes).filter(([k, v]) => now[k] !== v);
    if (differing.length) await changeTeam(deps, actor, teamId, parseOrRefuse(TeamChanges, Object.fromEntries(differing)));
  });

  teamFormRoute(router, deps, '/delete', async (req, s, teamId) => {
    const body = DeleteForm.parse(req.body);
    const actor = actorOf(s);
    const { team } = await teamFor(deps.store, actor, teamId, 'delete');
    if (body.confirm.trim() !== team.slug) throw new ValidationError([`type the team's slug, ${team.slug}, to confirm; nothing was deleted`]);
    try {
      await deleteTeam(deps, actor, teamId, body.cascade === '1');
    } catch (err) {
      if (err instanceof ConflictError)
        throw new ConflictError('the team has child teams: tick "Also delete its child teams" to delete them too, or move them first');
      throw err;
    }
    return PAGES.teams;
  });

  teamFormRoute(router, deps, '/leave', async (_req, s, teamId) => {
    await removeTeamMember(deps, actorOf(s), teamId, s.user._id);
    return PAGES.teams;
  });

  router.use(teamMemberRoutes(deps));
  return router;
}
