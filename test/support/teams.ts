// Team membership for tests about something else: the way a user joins, an
// invitation from a manager accepted by the invitee, through the core.
import type { TeamMemberDoc } from '../../lib/model/teams.js';
import type { TeamRole } from '../../lib/model/team-roles.js';
import { acceptInvitation, inviteMember } from '../../lib/teams/invitations.js';
import { userActor, type TeamDeps } from '../../lib/teams/team-changes.js';

/** `inviter` invites `user` (by id) with `role` and `groups`, and `user` accepts. */
export async function joinTeam(
  deps: TeamDeps,
  inviter: { id: string },
  teamId: string,
  user: { id: string },
  role: TeamRole,
  groups: string[] = [],
): Promise<TeamMemberDoc> {
  const invitation = await inviteMember(deps, userActor(inviter.id, { type: 'user', userId: inviter.id }), teamId, { user: user.id, role, groups });
  return (await acceptInvitation(deps, user.id, invitation._id, { type: 'user', userId: user.id })).member;
}
