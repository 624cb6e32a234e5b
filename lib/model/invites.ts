// Invitations to create an account at /signup: what an admin gives (an
// optional email the sign-up must use, the role, how long it lasts), how the
// invitation is stored (its token only as a hash), its state, and how it reads
// in the admin API and the CLI. The token is shown once, in the link.
import { z } from 'zod';
import type { Role } from './users.js';
import { actorPayload, type EventActor } from './webhook-events.js';
import { currentDate } from '../runtime/clock.js';

export const INVITE_DEFAULT_DAYS = 7;
export const INVITE_MAX_DAYS = 90;
const DAY_MS = 24 * 60 * 60_000;

export interface InviteDoc {
  _id: string;
  /** hashSecret of the token in the link: the link itself is never stored. */
  tokenHash: string;
  /** When set, the sign-up must use this address. */
  email: string | null;
  role: Role;
  expiresAt: Date;
  createdBy: EventActor;
  createdAt: Date;
  usedBy: string | null;
  usedAt: Date | null;
  revokedAt: Date | null;
}

/**
 * Whoever inserts this document first owns the invitation: a sign-up using it
 * or a revocation. `_id` is the invitation's id, so a second insert fails
 * atomically (FerretDB v1 has no transactions; an insert is the one atomic
 * "first wins"). `holder` lets the owner give a use back.
 */
export interface InviteClaimDoc {
  _id: string;
  kind: 'use' | 'revoke';
  holder: string;
  at: Date;
}

export type InviteState = 'pending' | 'used' | 'revoked' | 'expired';

export const NewInviteInput = z
  .object({
    email: z
      .email('must be an email address')
      .max(254)
      .transform((e) => e.toLowerCase())
      .nullable()
      .default(null),
    role: z.enum(['user', 'admin'], { error: 'must be user or admin' }).default('user'),
    expires_in_days: z
      .number({ error: 'must be a number' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(INVITE_MAX_DAYS, `must be at most ${INVITE_MAX_DAYS}`)
      .default(INVITE_DEFAULT_DAYS),
  })
  .strict();
export type NewInviteInput = z.input<typeof NewInviteInput>;

export function newInviteDoc(id: string, tokenHash: string, input: z.output<typeof NewInviteInput>, actor: EventActor, now = currentDate()): InviteDoc {
  return {
    _id: id,
    tokenHash,
    email: input.email,
    role: input.role,
    expiresAt: new Date(now.getTime() + input.expires_in_days * DAY_MS),
    createdBy: actor,
    createdAt: now,
    usedBy: null,
    usedAt: null,
    revokedAt: null,
  };
}

export function inviteState(invite: InviteDoc, now = currentDate()): InviteState {
  if (invite.usedAt) return 'used';
  if (invite.revokedAt) return 'revoked';
  return invite.expiresAt <= now ? 'expired' : 'pending';
}

/** Why an invitation cannot be used, in plain words for the sign-up page (nothing about who made it or for whom). */
export const INVITE_REFUSALS: Record<Exclude<InviteState, 'pending'> | 'unknown', string> = {
  unknown: 'This invitation link is not valid. Check that you copied the whole link.',
  expired: 'This invitation has expired. Ask whoever invited you for a new one.',
  used: 'This invitation has already been used.',
  revoked: 'This invitation was withdrawn.',
};

/** The link an admin hands to the invitee; the only place the token appears. */
export const inviteLink = (issuer: string, token: string): string => `${issuer}/signup?invite=${encodeURIComponent(token)}`;

/** An invitation as the admin API and the CLI show it (never the token or its hash). */
export function inviteJson(invite: InviteDoc, now = currentDate()) {
  return {
    id: invite._id,
    email: invite.email,
    role: invite.role,
    state: inviteState(invite, now),
    expires_at: invite.expiresAt.toISOString(),
    created_at: invite.createdAt.toISOString(),
    created_by: actorPayload(invite.createdBy),
    used_by: invite.usedBy,
    used_at: invite.usedAt?.toISOString() ?? null,
    revoked_at: invite.revokedAt?.toISOString() ?? null,
  };
}

/** The admin event data of a new invitation: never the token. */
export const inviteCreatedData = (invite: InviteDoc) => ({
  invite_id: invite._id,
  email: invite.email,
  role: invite.role,
  expires_at: invite.expiresAt.toISOString(),
});

/** A token as links carry it (newSecret: 43 base64url characters); anything else is not looked up. */
export const looksLikeInviteToken = (token: unknown): token is string => typeof token === 'string' && /^[A-Za-z0-9_-]{43}$/.test(token);
