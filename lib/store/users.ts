// User accounts in MongoDB.
import { ConflictError } from '../domain/errors.js';
import { newUserAccount, profileChanges, publicUser, type NewUserInput, type ProfileUpdate, type PublicUser, type UserDoc } from '../domain/users.js';
import { deleteConsents } from './consents.js';
import { deleteMembershipsOf } from './teams.js';
import { isDuplicateKeyError, type Store } from './db.js';

// Re-exported for modules that still import these from the store.
export { publicUser, type UserDoc };

/** Creates an account (built and checked by the domain); a taken email or username is a ConflictError. */
export async function createUser(store: Store, input: NewUserInput): Promise<UserDoc> {
  const doc = await newUserAccount(input);
  try {
    await store.users.insertOne(doc);
  } catch (err) {
    if (isDuplicateKeyError(err)) {
      const field = /username/.test(String((err as Error).message)) ? `username ${doc.username}` : `email ${doc.email}`;
      throw new ConflictError(`a user with ${field} already exists`);
    }
    throw err;
  }
  return doc;
}

/** Stores a new password hash (the password already checked with passwordProblem). */
export async function setPasswordHash(store: Store, userId: string, passwordHash: string): Promise<void> {
  await store.users.updateOne({ _id: userId }, { $set: { passwordHash, updatedAt: new Date() } });
}

export async function listUsers(store: Store): Promise<PublicUser[]> {
  const docs = await store.users.find({}, { sort: { createdAt: 1 }, limit: 10_000 }).toArray();
  return docs.map(publicUser);
}

export async function findUserByEmail(store: Store, email: string): Promise<UserDoc | null> {
  return store.users.findOne({ email: email.toLowerCase() });
}

export async function findUserById(store: Store, id: string): Promise<UserDoc | null> {
  return store.users.findOne({ _id: id });
}

/** A user named by id, email or username (what people type to name someone). */
export async function findUserByRef(store: Store, ref: string): Promise<UserDoc | null> {
  return (await findUserById(store, ref)) ?? (ref.includes('@') ? await findUserByEmail(store, ref) : await findUserByUsername(store, ref));
}

export async function findUserByUsername(store: Store, username: string): Promise<UserDoc | null> {
  return store.users.findOne({ username: username.toLowerCase() });
}

/** Applies a validated profile change; returns the user after it and the fields that changed. */
export async function updateProfile(store: Store, userId: string, update: ProfileUpdate): Promise<{ user: UserDoc; changed: string[] } | null> {
  const before = await findUserById(store, userId);
  if (!before) return null;
  const set = profileChanges(before, update);
  const changed = Object.keys(set);
  if (changed.length === 0) return { user: before, changed };
  const user = await store.users.findOneAndUpdate({ _id: userId }, { $set: { ...set, updatedAt: new Date() } }, { returnDocument: 'after' });
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
  if ((await store.users.deleteOne({ _id: userId })).deletedCount !== 1) return null;
  const [sessions, passkeys, personalAccessTokens, consents, teamMemberships, gpgKeys, domains, socialAccounts] = await Promise.all([
    store.sessions.deleteMany({ userId }).then((r) => r.deletedCount),
    store.passkeys.deleteMany({ userId }).then((r) => r.deletedCount),
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
