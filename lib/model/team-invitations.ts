// Team invitations: a user joins a team only by accepting one. A manager
// invites by user id, email or username; the answer is the same whether or not
// such an account exists (or is already a member), so inviting tells nobody
// who has an account. Pure module: the model, its limits and how it is shown.
import { z } from 'zod';
import type { TeamRole } from './team-roles.js';
import type { TeamDoc } from './teams.js';
import { currentDate } from '../runtime/clock.js';

/** An invitation not accepted within this time is void (removed when next listed). */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface TeamInvitationDoc {
  /** Random: names the invitation in URLs. */
  _id: string;
  /** `${teamId}:${reference}`, unique: one pending invitation per team and reference. */
  slot: string;
  teamId: string;
  /** What the inviter typed (trimmed): shown to the team's managers, never resolved for them. */
  reference: string;
  /**
   * The account the reference named when the invitation was sent, if any, and
   * only one that is not a member yet: the one who may accept. Null makes an
   * invitation nobody can accept, listed like any other.
   */
  userId: string | null;
  role: TeamRole;
  groups: string[];
  /** The inviting user: their role must still allow `role` when the invitation is accepted. */
  invitedBy: string;
  createdAt: Date;
  expiresAt: Date;
}

export const InvitationId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be an invitation id');

/** The reference as the unique slot keeps it: one spelling per account (emails and usernames are lowercase). */
export const invitationSlot = (teamId: string, reference: string): string => `${teamId}:${reference.trim().toLowerCase()}`;

export const isLive = (invitation: Pick<TeamInvitationDoc, 'expiresAt'>, now = currentDate()): boolean => invitation.expiresAt > now;

/** A pending invitation as the team's managers see it. */
export function invitationJson(i: TeamInvitationDoc): Record<string, unknown> {
  return {
    id: i._id,
    user: i.reference,
    role: i.role,
    groups: i.groups,
    invited_by: i.invitedBy,
    created_at: i.createdAt.toISOString(),
    expires_at: i.expiresAt.toISOString(),
  };
}

/** An invitation as its invitee sees it: the team by name, never the reference it was sent to. */
export function receivedInvitationJson(i: TeamInvitationDoc, team: TeamDoc): Record<string, unknown> {
  return {
    id: i._id,
    team: { id: team._id, name: team.name, slug: team.slug },
    role: i.role,
    groups: i.groups,
    invited_by: i.invitedBy,
    expires_at: i.expiresAt.toISOString(),
  };
}
