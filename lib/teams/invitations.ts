// Joining a team by invitation, for every caller (the team APIs, bound tokens,
// /account/teams): a manager invites within the member-write cap, the invitee
// accepts or declines, a manager revokes. Nobody becomes a member without
// accepting, and inviting answers the same whether or not an account exists.
// Only instance-wide actors (site scopes, the operator CLI) add members
// directly (member-changes.ts).
import { ConflictError, ForbiddenError, NotFoundError } from '../model/errors.js';
import { INVITATION_TTL_MS, invitationSlot, type TeamInvitationDoc } from '../model/team-invitations.js';
import { memberChangeAllowed } from '../model/team-roles.js';
import type { NewMemberInput, TeamDoc, TeamMemberDoc } from '../model/teams.js';
import type { UserDoc } from '../model/users.js';
import type { EventActor } from '../model/webhook-events.js';
import { newId } from '../security/secrets.js';
import type { Store } from '../store/db.js';
import { deleteInvitation, findInvitation, insertInvitation, invitationsForUser, invitationsOfTeam } from '../store/team-invitations.js';
import { findMember, findTeam, findTeams, insertMember } from '../store/teams.js';
import { findUserByRef } from '../store/users.js';
import { effectiveRole } from './membership.js';
import { checkCap, checkGroups } from './member-changes.js';
import { teamData, teamFor, type TeamActor, type TeamDeps } from './team-changes.js';
import { currentDate } from '../runtime/clock.js';

/** Invitations listed at once, on a team and to a user. */
export const MAX_LISTED_INVITATIONS = 200;

/**
 * The account a reference names, for an invitation. An email names an account
 * only when that account's address is verified: anyone may sign up with an
 * address they do not own, and would otherwise receive its invitations.
 */
async function invitee(store: Store, reference: string): Promise<UserDoc | null> {
  const user = await findUserByRef(store, reference);
  return user && reference.includes('@') && !user.emailVerified ? null : user;
}

/**
 * Invites `input.user` to the team with a role within the inviter's reach.
 * The invitation is stored whether or not the reference names an account
 * that could accept it, so the answer says nothing about who has one.
 */
export async function inviteMember(deps: TeamDeps, actor: TeamActor, teamId: string, input: NewMemberInput): Promise<TeamInvitationDoc> {
  if (actor.userId === null) throw new ForbiddenError('only a user sends invitations');
  const { team, role } = await teamFor(deps.store, actor, teamId, 'manage-members');
  checkCap(role, null, input.role);
  checkGroups(team, input.groups);
  const reference = input.user.trim();
  const user = await invitee(deps.store, reference);
  const canAccept = user !== null && (await findMember(deps.store, teamId, user._id)) === null;
  const now = currentDate();
  const invitation: TeamInvitationDoc = {
    _id: newId(),
    slot: invitationSlot(teamId, reference),
    teamId,
    reference,
    userId: canAccept ? user._id : null,
    role: input.role,
    groups: input.groups,
    invitedBy: actor.userId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
  };
  if (!(await insertInvitation(deps.store, invitation))) throw new ConflictError(`an invitation to ${reference} is pending; revoke it first to send another`);
  await deps.audit.record('team.member.invite', {
    actor: actor.event,
    subject: { teamId: team._id },
    data: { ...teamData(team), invitation_id: invitation._id, user_id: invitation.userId, role: input.role, groups: input.groups },
  });
  return invitation;
}

/** The team's pending invitations, for those who manage its members. */
export async function teamInvitations(deps: Pick<TeamDeps, 'store'>, actor: TeamActor, teamId: string): Promise<TeamInvitationDoc[]> {
  await teamFor(deps.store, actor, teamId, 'manage-members');
  return invitationsOfTeam(deps.store, teamId, MAX_LISTED_INVITATIONS);
}

/** Revokes a pending invitation; a manager revokes only one for a role within their reach. */
export async function revokeInvitation(deps: TeamDeps, actor: TeamActor, teamId: string, invitationId: string): Promise<void> {
  const { team, role } = await teamFor(deps.store, actor, teamId, 'manage-members');
  const invitation = await findInvitation(deps.store, invitationId);
  if (!invitation || invitation.teamId !== teamId) throw new NotFoundError('no such invitation');
  checkCap(role, invitation.role, null);
  if (await deleteInvitation(deps.store, invitation._id))
    await deps.audit.record('team.invitation.revoke', {
      actor: actor.event,
      subject: { teamId: team._id },
      data: { ...teamData(team), invitation_id: invitation._id, user_id: invitation.userId },
    });
}

/** The invitations a user may accept, with their teams (one whose team is gone is left out). */
export async function receivedInvitations(store: Store, userId: string): Promise<{ invitation: TeamInvitationDoc; team: TeamDoc }[]> {
  const invitations = await invitationsForUser(store, userId, MAX_LISTED_INVITATIONS);
  const teams = new Map(
    (
      await findTeams(
        store,
        invitations.map((i) => i.teamId),
      )
    ).map((t) => [t._id, t]),
  );
  return invitations.flatMap((invitation) => {
    const team = teams.get(invitation.teamId);
    return team ? [{ invitation, team }] : [];
  });
}

/** The user's own invitation, live; anyone else's is not found. */
async function ownInvitation(store: Store, userId: string, invitationId: string): Promise<TeamInvitationDoc> {
  const invitation = await findInvitation(store, invitationId);
  if (!invitation || invitation.userId !== userId) throw new NotFoundError('no such invitation');
  return invitation;
}

/**
 * Accepts an invitation: the user joins with its role and the groups the team
 * still has. The inviter's role is checked again now, as every member change
 * is: an inviter demoted or gone since makes the invitation void.
 */
export async function acceptInvitation(
  deps: TeamDeps,
  userId: string,
  invitationId: string,
  event: EventActor,
): Promise<{ team: TeamDoc; member: TeamMemberDoc }> {
  const invitation = await ownInvitation(deps.store, userId, invitationId);
  const team = await findTeam(deps.store, invitation.teamId);
  const inviterRole = team ? await effectiveRole(deps.store, invitation.invitedBy, team) : null;
  if (!team || !memberChangeAllowed(inviterRole, null, invitation.role)) {
    await deleteInvitation(deps.store, invitation._id);
    throw new ConflictError(team ? 'this invitation is no longer valid: whoever sent it can no longer give that role' : 'the team no longer exists');
  }
  if (!(await deleteInvitation(deps.store, invitation._id))) throw new NotFoundError('no such invitation');
  const groups = invitation.groups.filter((g) => team.groups.some((t) => t.slug === g));
  if (!(await insertMember(deps.store, team._id, userId, invitation.role, groups))) throw new ConflictError('you are already a member of this team');
  await deps.audit.record('team.member.add', {
    actor: event,
    subject: { teamId: team._id },
    data: { ...teamData(team), user_id: userId, role: invitation.role, groups, invitation_id: invitation._id, invited_by: invitation.invitedBy },
  });
  return { team, member: (await findMember(deps.store, team._id, userId))! };
}

/** Declines an invitation: it is gone, and nothing else changes. */
export async function declineInvitation(deps: TeamDeps, userId: string, invitationId: string, event: EventActor): Promise<void> {
  const invitation = await ownInvitation(deps.store, userId, invitationId);
  if (!(await deleteInvitation(deps.store, invitation._id))) throw new NotFoundError('no such invitation');
  const team = await findTeam(deps.store, invitation.teamId);
  await deps.audit.record('team.invitation.decline', {
    actor: event,
    subject: { teamId: invitation.teamId, userId },
    data: { ...(team ? teamData(team) : { team_id: invitation.teamId }), invitation_id: invitation._id, user_id: userId },
  });
}
