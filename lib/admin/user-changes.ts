// Every administrator's change to a user account, for the admin API and the
// operator CLI alike: update (profile fields, role, disabled, whether the
// phone number is verified), reset of second
// factors, revocation of every token, deletion. Each checks its rules, keeps
// the last enabled administrator (lib/admin/last-admin.ts), emits its admin
// webhook event and records its audit events (user.updated, user.disabled,
// user.enabled, user.role.changed, user.deleted) with the actor; the data
// names fields, never a secret's value.
//
// Disabling cuts the user off at once: their sessions end (the caller's
// endSessions: back-channel logout from the api), their grants and refresh
// families are revoked, and their personal access tokens are refused while
// disabled (personalAccessTokenContext). Enabling lets them sign in again;
// what was revoked stays revoked.
import { ConflictError, NotFoundError, parseOrRefuse, ValidationError } from '../model/errors.js';
import { AdminUserUpdate, isDisabled, type UserDoc } from '../model/users.js';
import type { AdminEvent, EventActor } from '../model/webhook-events.js';
import type { FlowClient } from '../flows/flow-client.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import { revokeUserGrants, type BulkRevocation } from '../grants/revocation.js';
import type { Store } from '../store/db.js';
import {
  clearSecondFactors,
  deleteUserAccount,
  deleteUserPersonalAccessTokens,
  findUserById,
  setUserFields,
  type AccountFields,
  type DeletedUserData,
} from '../store/users.js';
import { keepingAnAdmin } from './last-admin.js';

export interface UserChangeDeps {
  store: Store;
  flows: FlowClient;
  events: { admin(name: AdminEvent, data: Record<string, unknown>, actor: EventActor): Promise<void> };
  /** The account's changes, and the sessions an account change ends (`session.revoked`), with who made it. */
  audit: Pick<AuditTrail, 'record'>;
  /** Ends every session of the user; how many (the api: each with back-channel logout). */
  endSessions(userId: string): Promise<number>;
}

/** Ends the user's sessions for an administrator's account change (disable, delete) and records how many ended. */
async function endSessionsFor(deps: UserChangeDeps, userId: string, actor: EventActor): Promise<number> {
  const count = await deps.endSessions(userId);
  if (count > 0) await deps.audit.record('session.revoked', { actor, subject: { userId }, data: { by: 'account_change', count } });
  return count;
}

/** The fields of a checked update that differ from the account as it is. */
function changesOf(user: UserDoc, update: AdminUserUpdate): AccountFields {
  const set: AccountFields = {};
  if (update.name !== undefined && update.name !== user.name) set.name = update.name;
  // An address an administrator sets is vouched for, as for an account an operator creates.
  if (update.email !== undefined && update.email !== user.email) Object.assign(set, { email: update.email, emailVerified: true });
  if (update.username !== undefined && update.username !== user.username) set.username = update.username;
  if (update.role !== undefined && update.role !== user.role) set.role = update.role;
  if (update.disabled !== undefined && update.disabled !== isDisabled(user)) set.disabled = update.disabled;
  if (update.phone_number_verified !== undefined && update.phone_number_verified !== (user.phoneNumberVerified === true)) {
    if (update.phone_number_verified && !user.phoneNumber) throw new ValidationError(['phone_number_verified: the user has no phone number']);
    set.phoneNumberVerified = update.phone_number_verified;
  }
  return set;
}

/** The changed fields as the admin API names them (the admin.user.update event's `changed`); emailVerified goes with email. */
const changedNames = (set: AccountFields): string[] =>
  Object.keys(set).flatMap((k) => (k === 'emailVerified' ? [] : k === 'phoneNumberVerified' ? ['phone_number_verified'] : [k]));

/**
 * Writes an update. Marking a phone number verified holds only for the number
 * the administrator saw: when the user changed it meanwhile nothing is written
 * (a ConflictError); a change of number after the mark clears it (profileChanges).
 */
async function writeUpdate(store: Store, target: UserDoc, set: AccountFields): Promise<UserDoc | null> {
  if (set.phoneNumberVerified !== true) return setUserFields(store, target._id, set);
  const user = await setUserFields(store, target._id, set, { phoneNumber: target.phoneNumber });
  if (!user && (await findUserById(store, target._id))) throw new ConflictError('the phone number changed meanwhile: look at it again');
  return user;
}

/** Sessions end and grants are revoked: what a disabled user had stops working now. */
async function cutOff(deps: UserChangeDeps, userId: string, actor: EventActor): Promise<BulkRevocation & { sessions: number }> {
  const sessions = await endSessionsFor(deps, userId, actor);
  return { sessions, ...(await revokeUserGrants(deps, userId, 'user disabled')) };
}

/**
 * Changes what a body names (AdminUserUpdate: name, email, username, role,
 * disabled, phone_number_verified); a taken email or username is a ConflictError; the last enabled
 * admin may not be demoted or disabled. A change that changes nothing emits nothing.
 */
export async function updateUser(deps: UserChangeDeps, target: UserDoc, body: unknown, actor: EventActor): Promise<UserDoc> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ValidationError(['the body must be a JSON object']);
  const set = changesOf(target, parseOrRefuse(AdminUserUpdate, body));
  const changed = changedNames(set);
  if (changed.length === 0) return target;
  const user = await keepingAnAdmin(deps.store, target, set, () => writeUpdate(deps.store, target, set));
  if (set.disabled === true) await cutOff(deps, user._id, actor);
  await Promise.all([deps.events.admin('admin.user.update', { user_id: user._id, changed }, actor), recordUpdate(deps, user._id, set, changed, actor)]);
  return user;
}

/** The audit records of an update: the profile fields in one user.updated; the role and the disabled flag each their own event. */
async function recordUpdate(deps: UserChangeDeps, userId: string, set: AccountFields, changed: string[], actor: EventActor): Promise<void> {
  const subject = { userId };
  const profile = changed.filter((f) => f !== 'role' && f !== 'disabled');
  const records: Promise<void>[] = [];
  if (profile.length) records.push(deps.audit.record('user.updated', { actor, subject, data: { changed: profile } }));
  if (set.role !== undefined) records.push(deps.audit.record('user.role.changed', { actor, subject, data: { admin: set.role === 'admin' } }));
  if (set.disabled !== undefined) records.push(deps.audit.record(set.disabled ? 'user.disabled' : 'user.enabled', { actor, subject }));
  await Promise.all(records);
}

/** Removes the user's TOTP (and a pending enrollment), backup codes and passkeys: they sign in with their password alone until they enroll again. */
export async function resetSecondFactors(deps: UserChangeDeps, target: UserDoc, actor: EventActor): Promise<UserDoc> {
  await clearSecondFactors(deps.store, target._id);
  const user = await findUserById(deps.store, target._id);
  if (!user) throw new NotFoundError('no such user');
  await Promise.all([
    deps.events.admin('admin.user.update', { user_id: user._id, changed: ['second_factors'] }, actor),
    deps.audit.record('user.updated', { actor, subject: { userId: user._id }, data: { changed: ['second_factors'] } }),
  ]);
  return user;
}

/** What revoking a user's tokens did. */
export interface RevokedTokens extends BulkRevocation {
  personalAccessTokens: number;
}

/** Revokes every OAuth grant of the user (access and refresh tokens, refresh families) and deletes their personal access tokens. Sessions stay. */
export async function revokeUserTokens(deps: UserChangeDeps, target: UserDoc, actor: EventActor): Promise<RevokedTokens> {
  const revoked = await revokeUserGrants(deps, target._id, 'tokens revoked by an administrator');
  const personalAccessTokens = await deleteUserPersonalAccessTokens(deps.store, target._id);
  const data = { changed: ['tokens_revoked'], grants_revoked: revoked.grants, personal_access_tokens_revoked: personalAccessTokens };
  await Promise.all([
    deps.events.admin('admin.user.update', { user_id: target._id, ...data }, actor),
    deps.audit.record('user.updated', { actor, subject: { userId: target._id }, data }),
  ]);
  return { ...revoked, personalAccessTokens };
}

/** What deleting a user did. */
export interface DeletedUser extends DeletedUserData, BulkRevocation {
  signedOut: number;
}

/**
 * Deletes the account (deleteUserAccount: sessions, passkeys, personal access
 * tokens, consents, team memberships, GPG keys, domains, social accounts) and
 * revokes its grants. The user's sessions end first, with back-channel logout
 * where the caller gives one. The last enabled admin is first disabled through
 * the same guard as an update, so two admins deleting each other cannot both succeed.
 */
export async function deleteUser(deps: UserChangeDeps, target: UserDoc, actor: EventActor): Promise<DeletedUser> {
  if (!isDisabled(target)) await keepingAnAdmin(deps.store, target, { disabled: true }, () => setUserFields(deps.store, target._id, { disabled: true }));
  const signedOut = await endSessionsFor(deps, target._id, actor);
  const removed = await deleteUserAccount(deps.store, target._id);
  if (!removed) throw new NotFoundError('no such user'); // deleted meanwhile
  const revoked = await revokeUserGrants(deps, target._id);
  await Promise.all([
    deps.events.admin('admin.user.delete', { user_id: target._id }, actor),
    deps.audit.record('user.deleted', { actor, subject: { userId: target._id } }),
  ]);
  return { ...removed, ...revoked, signedOut };
}
