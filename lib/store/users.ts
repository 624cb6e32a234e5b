// User accounts in MongoDB.
import { ConflictError } from '../model/errors.js';
import { isDisabled, newUserAccount, profileChanges, type NewUserInput, type ProfileUpdate, type UserDoc } from '../model/users.js';
import { remembered } from './remembered.js';
import { deleteConsents } from './consents.js';
import { deleteUserPasskeys } from './passkeys.js';
import { deleteMembershipsOf } from './teams.js';
import { insertManyIfAbsent, isDuplicateKeyError, type Store } from './db.js';
import { deleteUserKeys, findUserByKey, insertUserKeys, repairUserKey, writeUserKeys } from './user-lookups.js';
import { currentDate } from '../runtime/clock.js';

// Re-exported for modules that still import it from the store.

/** Creates an account (built and checked by the domain); a taken email or username is a ConflictError. */
export async function createUser(store: Store, input: NewUserInput): Promise<UserDoc> {
  const doc = await newUserAccount(input);
  try {
    await store.users.insertOne(doc);
  } catch (err) {
    if (isDuplicateKeyError(err)) {
      const field = /username/.test(String((err as Error).message)) ? 'username' : 'email';
      await repairUserKey(store, field, doc[field]);
      throw new ConflictError(`a user with ${field} ${doc[field]} already exists`);
    }
    throw err;
  }
  await writeUserKeys(store, doc);
  return doc;
}

/** Inserts accounts built by newUserAccount in one insertMany (bulk loads); those already there are left as they are. */
export async function insertUsers(store: Store, docs: UserDoc[]): Promise<void> {
  await insertManyIfAbsent(store.users, docs);
  await insertUserKeys(store, docs);
}

/** Stores a new password hash (the password already checked with passwordProblem). */
export async function setPasswordHash(store: Store, userId: string, passwordHash: string): Promise<void> {
  await store.users.updateOne({ _id: userId }, { $set: { passwordHash, updatedAt: currentDate() } });
}

export async function listUsers(store: Store): Promise<UserDoc[]> {
  return store.users.find({}, { sort: { createdAt: 1 }, limit: 10_000 }).toArray();
}

/** At most this long a search text: longer ones are refused, not cut (lib/model/users.ts). */
export const MAX_USER_SEARCH = 100;

/** `text` as a regular expression that matches it literally (no special character left: linear time). */
const literal = (text: string): RegExp => new RegExp(text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'), 'i');

/**
 * A page of accounts, oldest first, whose email, username or name contains `q`
 * (any case), and how many match in all. Administration only: a scan.
 */
/** The orders the console lists accounts in: by a field, then by id so that pages never overlap. */
export const USER_SORTS = { created: 'createdAt', email: 'email', username: 'username', name: 'name' } as const;
export type UserSort = keyof typeof USER_SORTS;

export async function searchUsers(
  store: Store,
  page: { q: string; limit: number; offset: number; sort?: UserSort; dir?: 'asc' | 'desc' },
): Promise<{ users: UserDoc[]; total: number }> {
  const pattern = literal(page.q.slice(0, MAX_USER_SEARCH));
  const filter = page.q === '' ? {} : { $or: [{ email: pattern }, { username: pattern }, { name: pattern }] };
  const dir = page.dir === 'desc' ? -1 : 1;
  const [users, total] = await Promise.all([
    store.users.find(filter, { sort: { [USER_SORTS[page.sort ?? 'created']]: dir, _id: dir }, skip: page.offset, limit: page.limit }).toArray(),
    store.users.countDocuments(filter),
  ]);
  return { users, total };
}

/** How many administrators are enabled (role admin, not disabled): the last one may not go. */
export async function countEnabledAdmins(store: Store): Promise<number> {
  return store.users.countDocuments({ role: 'admin', disabled: { $ne: true } });
}

/** The account fields an administrator may set. */
export type AccountFields = Partial<Pick<UserDoc, 'name' | 'email' | 'username' | 'role' | 'disabled' | 'emailVerified' | 'phoneNumberVerified'>>;

/**
 * Sets account fields an administrator changed; the user after it, or null when gone
 * (or, with `where`, when the account no longer matches it: nothing is set then).
 * An email or username another account holds is a ConflictError (looked up
 * first, to name the field; the unique index refuses it anyway).
 */
export async function setUserFields(store: Store, userId: string, set: AccountFields, where: { phoneNumber?: string } = {}): Promise<UserDoc | null> {
  for (const field of ['email', 'username'] as const) {
    const value = set[field];
    if (value === undefined) continue;
    const holder = await findUserByKey(store, field, value);
    if (holder && holder._id !== userId) throw new ConflictError(`a user with ${field} ${value} already exists`);
  }
  let user: UserDoc | null;
  try {
    user = await store.users.findOneAndUpdate({ _id: userId, ...where }, { $set: { ...set, updatedAt: currentDate() } }, { returnDocument: 'after' });
  } catch (err) {
    if (isDuplicateKeyError(err)) throw new ConflictError('that email or username is taken');
    throw err;
  }
  // The old values' keys stay behind, ignored (they no longer match this user) until a new holder takes them.
  if (user)
    await writeUserKeys(store, {
      _id: user._id,
      ...(set.email !== undefined ? { email: user.email } : {}),
      ...(set.username !== undefined ? { username: user.username } : {}),
    });
  return user;
}

/** Removes the user's TOTP (confirmed and pending), backup codes and passkeys; how many passkeys went. */
export async function clearSecondFactors(store: Store, userId: string): Promise<{ passkeys: number }> {
  await store.users.updateOne({ _id: userId }, { $set: { totp: null, totpPending: null, backupCodes: [], updatedAt: currentDate() } });
  return { passkeys: await deleteUserPasskeys(store, userId) };
}

/** Deletes every personal access token of the user; how many. */
export async function deleteUserPersonalAccessTokens(store: Store, userId: string): Promise<number> {
  return (await store.personalAccessTokens.deleteMany({ userId })).deletedCount;
}

/** How many passkeys each of these users has (the admin user answer); null: every user's, for a listing of them all. */
export async function passkeyCounts(store: Store, userIds: string[] | null): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (userIds?.length === 0) return counts;
  // Every user's: one read of the passkeys, not an `$in` of thousands of ids.
  for (const p of await store.passkeys.find(userIds ? { userId: { $in: userIds } } : {}, { projection: { userId: 1 } }).toArray())
    counts.set(p.userId, (counts.get(p.userId) ?? 0) + 1);
  return counts;
}

export async function findUserByEmail(store: Store, email: string): Promise<UserDoc | null> {
  return findUserByKey(store, 'email', email.toLowerCase());
}

export async function findUserById(store: Store, id: string): Promise<UserDoc | null> {
  return store.users.findOne({ _id: id });
}

/** Whether a user exists and is not disabled (token checks that need nothing else of the user). */
export type UserStatusLookup = (userId: string) => Promise<boolean>;

/**
 * UserStatusLookup for the hot paths (refresh, introspection), remembered for
 * `ttlMs`, as client lookups are: disabling or deleting a user revokes their
 * grants before it is acknowledged, which every grant check reads fresh; this
 * only bounds how long a process may still take a user for active when that
 * revocation did not finish (a crash in between).
 */
export function cachedUserStatus(store: Store, ttlMs = 2_000): UserStatusLookup {
  return remembered(ttlMs, async (userId) => {
    const user = await store.users.findOne({ _id: userId }, { projection: { _id: 1, disabled: 1 } });
    return user !== null && !isDisabled(user);
  });
}

/** A user named by id, email or username (what people type to name someone). */
export async function findUserByRef(store: Store, ref: string): Promise<UserDoc | null> {
  return (await findUserById(store, ref)) ?? (ref.includes('@') ? await findUserByEmail(store, ref) : await findUserByUsername(store, ref));
}

export async function findUserByUsername(store: Store, username: string): Promise<UserDoc | null> {
  return findUserByKey(store, 'username', username.toLowerCase());
}

/** Applies a validated profile change; returns the user after it and the claims that changed. A cleared field is removed: absent means not set. */
export async function updateProfile(store: Store, userId: string, update: ProfileUpdate): Promise<{ user: UserDoc; changed: string[] } | null> {
  const before = await findUserById(store, userId);
  if (!before) return null;
  const { set, unset, changed } = profileChanges(before, update);
  if (changed.length === 0) return { user: before, changed };
  const user = await store.users.findOneAndUpdate(
    { _id: userId },
    { $set: { ...set, updatedAt: currentDate() }, ...(unset.length > 0 ? { $unset: Object.fromEntries(unset.map((f) => [f, ''])) } : {}) },
    { returnDocument: 'after' },
  );
  return user ? { user, changed } : null;
}

/** What deleting a user removed besides the account itself. */
export interface DeletedUserData {
  sessions: number;
  passkeys: number;
  personalAccessTokens: number;
  consents: number;
  teamMemberships: number;
  gpgKeys: number;
  domains: number;
  socialAccounts: number;
}

/**
 * Deletes a user's account and what only it used: sessions (signed out
 * everywhere), passkeys, personal access tokens, consents, GPG keys, domains and
 * linked social accounts. The account goes
 * first, so every check of the user's tokens fails from then on. Grants and
 * refresh families are revoked by the caller (revokeUserGrants). Team
 * memberships go too; a team the user alone owned stays, without a direct
 * owner, for its ancestors' managers or an operator to take over. Null when
 * there is no such user. Filters on userId: an operator's command, not a hot path.
 */
export async function deleteUserAccount(store: Store, userId: string): Promise<DeletedUserData | null> {
  const user = await findUserById(store, userId);
  if (!user || (await store.users.deleteOne({ _id: userId })).deletedCount !== 1) return null;
  await deleteUserKeys(store, user);
  const [sessions, passkeys, personalAccessTokens, consents, teamMemberships, gpgKeys, domains, socialAccounts] = await Promise.all([
    store.sessions.deleteMany({ userId }).then((r) => r.deletedCount),
    deleteUserPasskeys(store, userId),
    store.personalAccessTokens.deleteMany({ userId }).then((r) => r.deletedCount),
    deleteConsents(store, { userId }),
    deleteMembershipsOf(store, userId),
    store.gpgKeys.deleteMany({ userId }).then((r) => r.deletedCount),
    // A domain's verification flow that is still waiting finds its domain gone and ends without effect.
    store.domains.deleteMany({ userId }).then((r) => r.deletedCount),
    store.socialAccounts.deleteMany({ userId }).then((r) => r.deletedCount),
  ]);
  return { sessions, passkeys, personalAccessTokens, consents, teamMemberships, gpgKeys, domains, socialAccounts };
}
