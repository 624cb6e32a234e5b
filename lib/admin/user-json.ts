// A user account as the admin API and the operator CLI show it: what an
// administrator needs to see, never a password hash, TOTP secret or backup
// code; and what the changes to an account did, under the same names.
import { isDisabled, type UserDoc } from '../model/users.js';
import type { Store } from '../store/db.js';
import { passkeyCounts } from '../store/users.js';
import type { DeletedUser, RevokedTokens } from './user-changes.js';

export function adminUserJson(user: UserDoc, passkeys: number) {
  return {
    id: user._id,
    email: user.email,
    username: user.username,
    name: user.name,
    role: user.role,
    disabled: isDisabled(user),
    email_verified: user.emailVerified,
    phone_number: user.phoneNumber ?? null,
    phone_number_verified: user.phoneNumberVerified === true,
    totp_enabled: !!user.totp,
    passkeys,
    created_at: user.createdAt,
    updated_at: user.updatedAt,
  };
}

/** Users as adminUserJson shows them, their passkeys counted in one read (`everyone`: a listing of every user, counted without naming each). */
export async function adminUsersJson(store: Store, users: UserDoc[], everyone = false) {
  const passkeys = await passkeyCounts(store, everyone ? null : users.map((u) => u._id));
  return users.map((u) => adminUserJson(u, passkeys.get(u._id) ?? 0));
}

/** One user as adminUserJson shows them. */
export const adminUserJsonOf = async (store: Store, user: UserDoc) => (await adminUsersJson(store, [user]))[0]!;

/** What revoking a user's tokens did (the admin API's answer; the CLI adds the user's id). */
export const revokedTokensJson = (revoked: RevokedTokens) => ({
  grants_revoked: revoked.grants,
  personal_access_tokens_revoked: revoked.personalAccessTokens,
});

/** What deleting a user removed, as the CLI prints it (the admin API answers 204 with no body). */
export function deletedUserJson(user: UserDoc, removed: DeletedUser) {
  return {
    deleted: user._id,
    email: user.email,
    sessions: removed.sessions + removed.signedOut,
    passkeys: removed.passkeys,
    personal_access_tokens: removed.personalAccessTokens,
    consents: removed.consents,
    team_memberships: removed.teamMemberships,
    gpg_keys: removed.gpgKeys,
    domains: removed.domains,
    social_accounts: removed.socialAccounts,
    grants_revoked: removed.grants,
  };
}
