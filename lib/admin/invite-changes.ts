// Every change to invitations, for the admin API, the CLI and /signup alike:
// creating one (the token shown once, in the link; stored as a hash), revoking
// one, and using one for a sign-up. Creating and revoking are admin events
// (audit log + admin webhooks) that never carry the token.
//
// Single use without transactions: a sign-up and a revocation both insert the
// invitation's claim document (store/invites.ts claimInvite); only the caller
// whose insert succeeded goes on. A sign-up whose account then cannot be
// created (the email or username is taken) gives the claim back, so the
// invitee can correct the form and use the same link again.
import { ConflictError, NotFoundError, parseOrRefuse } from '../model/errors.js';
import { INVITE_REFUSALS, inviteCreatedData, inviteLink, inviteState, newInviteDoc, NewInviteInput, type InviteDoc } from '../model/invites.js';
import type { UserDoc } from '../model/users.js';
import type { AdminEvent, EventActor } from '../model/webhook-events.js';
import { hashSecret, newId, newSecret } from '../security/secrets.js';
import type { Store } from '../store/db.js';
import {
  claimInvite,
  findInvite,
  insertInvite,
  insertSignedUpUser,
  inviteClaim,
  markInviteRevoked,
  markInviteUsed,
  releaseInviteClaim,
} from '../store/invites.js';
import { currentDate } from '../runtime/clock.js';

export interface InviteDeps {
  store: Store;
  issuer: string;
  events: { admin(name: AdminEvent, data: Record<string, unknown>, actor: EventActor): Promise<void> };
}

/** A new invitation from a NewInviteInput body, and its link (the only time the token is seen). */
export async function createInvite(deps: InviteDeps, body: unknown, actor: EventActor): Promise<{ invite: InviteDoc; link: string }> {
  const input = parseOrRefuse(NewInviteInput, body ?? {});
  const token = newSecret();
  const invite = newInviteDoc(newId(), hashSecret(token), input, actor);
  await insertInvite(deps.store, invite);
  await deps.events.admin('invite.create', inviteCreatedData(invite), actor);
  return { invite, link: inviteLink(deps.issuer, token) };
}

/** An invitation by id, or a NotFoundError. */
export async function namedInvite(store: Store, id: string): Promise<InviteDoc> {
  const invite = await findInvite(store, id);
  if (!invite) throw new NotFoundError('no such invitation');
  return invite;
}

/**
 * Withdraws an invitation: it can no longer be used. Revoking one already
 * revoked changes nothing (no event); one already used is a ConflictError.
 * An expired one can be revoked (it then lists as revoked).
 */
export async function revokeInvite(deps: InviteDeps, invite: InviteDoc, actor: EventActor): Promise<InviteDoc> {
  if (invite.revokedAt) return invite;
  if (!(await claimInvite(deps.store, invite._id, 'revoke', newId()))) {
    const claim = await inviteClaim(deps.store, invite._id);
    if (claim?.kind === 'revoke') return { ...invite, revokedAt: claim.at };
    throw new ConflictError('the invitation has already been used');
  }
  const revokedAt = currentDate();
  await markInviteRevoked(deps.store, invite._id, revokedAt);
  await deps.events.admin('invite.revoke', { invite_id: invite._id }, actor);
  return { ...invite, revokedAt };
}

/** Why an invitation cannot be used right now (plain words for the page), or null when it can. */
export function inviteRefusal(invite: InviteDoc | null): string | null {
  if (!invite) return INVITE_REFUSALS.unknown;
  const state = inviteState(invite);
  return state === 'pending' ? null : INVITE_REFUSALS[state];
}

export type SignUpResult = { ok: true; user: UserDoc } | { ok: false; taken: 'email' | 'username' } | { ok: false; refusal: string };

/**
 * Stores a signed-up account, through the invitation when there is one: the
 * invitation is claimed first, and only the request whose claim was inserted
 * creates the account. A taken email or username gives the claim back.
 */
export async function storeSignUp(store: Store, user: UserDoc, invite: InviteDoc | null): Promise<SignUpResult> {
  if (!invite) {
    const taken = await insertSignedUpUser(store, user);
    return taken ? { ok: false, taken } : { ok: true, user };
  }
  const holder = newId();
  if (!(await claimInvite(store, invite._id, 'use', holder))) {
    const claim = await inviteClaim(store, invite._id);
    return { ok: false, refusal: claim?.kind === 'revoke' ? INVITE_REFUSALS.revoked : INVITE_REFUSALS.used };
  }
  const taken = await insertSignedUpUser(store, user);
  if (taken) {
    await releaseInviteClaim(store, invite._id, holder);
    return { ok: false, taken };
  }
  await markInviteUsed(store, invite._id, user._id);
  return { ok: true, user };
}
