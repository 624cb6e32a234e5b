// /account/teams/:teamId members and groups: invite a member by email,
// username or user id (and revoke a pending invitation), change a member's
// role or groups, remove a member; add and remove the team's groups. The member-write cap is checked by team-changes.ts, so a
// forged form giving a role the select did not offer is refused there.
import { parseOrRefuse } from '../../lib/model/errors.js';
import { Router } from 'express';
import { MemberChanges, NewGroupInput, NewMemberInput } from '../../lib/model/teams.js';
import { addGroup, changeMember, removeGroup, removeTeamMember } from '../../lib/teams/member-changes.js';
import { inviteMember, revokeInvitation } from '../../lib/teams/invitations.js';
import { InvitationId } from '../../lib/model/team-invitations.js';
import { fieldsOf, formList, formText } from '../http/input.js';
import { actorOf, teamFormRoute, type TeamsPageDeps } from './team-page.js';

const NewMemberForm = fieldsOf({ user: formText, role: formText });
/** One form changes the role, the other the groups (`set_groups`: no ticked box still means "no groups"). */
const MemberForm = fieldsOf({ role: formText, set_groups: formText, groups: formList });
const NewGroupForm = fieldsOf({ slug: formText, name: formText });

export function teamMemberRoutes(deps: TeamsPageDeps): Router {
  const router = Router();

  teamFormRoute(router, deps, '/members', async (req, s, teamId) => {
    const body = NewMemberForm.parse(req.body);
    await inviteMember(deps, actorOf(s), teamId, parseOrRefuse(NewMemberInput, { user: body.user, role: body.role || undefined }));
  });

  teamFormRoute(router, deps, '/invitations/:invitationId/revoke', async (req, s, teamId) => {
    await revokeInvitation(deps, actorOf(s), teamId, parseOrRefuse(InvitationId, req.params.invitationId));
  });

  teamFormRoute(router, deps, '/members/:userId', async (req, s, teamId) => {
    const body = MemberForm.parse(req.body);
    const changes = parseOrRefuse(MemberChanges, body.set_groups === '1' ? { groups: body.groups } : { role: body.role || undefined });
    await changeMember(deps, actorOf(s), teamId, String(req.params.userId), changes);
  });

  teamFormRoute(router, deps, '/members/:userId/remove', async (req, s, teamId) => {
    await removeTeamMember(deps, actorOf(s), teamId, String(req.params.userId));
  });

  teamFormRoute(router, deps, '/groups', async (req, s, teamId) => {
    const body = NewGroupForm.parse(req.body);
    await addGroup(deps, actorOf(s), teamId, parseOrRefuse(NewGroupInput, body));
  });

  teamFormRoute(router, deps, '/groups/:slug/remove', async (req, s, teamId) => {
    await removeGroup(deps, actorOf(s), teamId, String(req.params.slug));
  });

  return router;
}
