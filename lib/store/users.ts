// User accounts in MongoDB.
import { ConflictError, ValidationError, zodProblems } from '../domain/errors.js';
import { NewUserInput, usernameFromEmail, type ProfileUpdate, type Role } from '../domain/users.js';
import type { Sealed } from '../security/kek.js';
import { hashPassword } from '../security/password.js';
import { passwordProblem } from '../security/password-policy.js';
import { newId } from '../security/secrets.js';
import { deleteConsents } from './consents.js';
import { isDuplicateKeyError, type Store } from './db.js';
import { PAT_COLLECTION } from './personal-access-tokens.js';

export interface UserDoc {
  _id: string;
  email: string;
  emailVerified: boolean;
  username: string;
  name: string;
  picture: string | null;
  role: Role;
  passwordHash: string;
  /** Confirmed TOTP authenticator; the secret is sealed with the KEK. */
  totp: { secret: Sealed; lastTimeStep: number | null; enabledAt: Date } | null;
  /** TOTP enrollment shown but not yet confirmed by a code. */
  totpPending: { secret: Sealed; createdAt: Date } | null;
  /** Unused backup codes, as keyed hashes (security/backup-codes.ts). */
  backupCodes: string[];
  createdAt: Date;
  updatedAt: Date;
}

export type PublicUser = Omit<UserDoc, 'passwordHash' | '_id' | 'totp' | 'totpPending' | 'backupCodes'> & { id: string; totpEnabled: boolean; backupCodesLeft: number };

export function publicUser({ _id, passwordHash: _p, totp, totpPending: _t, backupCodes, ...rest }: UserDoc): PublicUser {
  return { id: _id, ...rest, totpEnabled: totp !== null && totp !== undefined, backupCodesLeft: backupCodes?.length ?? 0 };
}

export async function createUser(store: Store, input: NewUserInput): Promise<UserDoc> {
  const parsed = NewUserInput.safeParse(input);
  if (!parsed.success) throw new ValidationError(zodProblems(parsed.error.issues));
  const { email, password, name, username, admin } = parsed.data;
  const problem = await passwordProblem(password, email);
  if (problem) throw new ValidationError([`password: ${problem}`]);
  const now = new Date();
  const doc: UserDoc = {
    _id: newId(),
    email,
    // Operator-created accounts are trusted: the operator vouches for the address.
    emailVerified: true,
    username: username ?? usernameFromEmail(email),
    name: name ?? '',
    picture: null,
    role: admin ? 'admin' : 'user',
    passwordHash: await hashPassword(password),
    totp: null,
    totpPending: null,
    backupCodes: [],
    createdAt: now,
    updatedAt: now,
  };
  try {
    await store.users.insertOne(doc);
  } catch (err) {
    if (isDuplicateKeyError(err)) {
      const field = /username/.test(String((err as Error).message)) ? `username ${doc.username}` : `email ${email}`;
      throw new ConflictError(`a user with ${field} already exists`);
    }
    throw err;
  }
  return doc;
}

/** Sets a new password (already checked with passwordProblem). */
export async function setPassword(store: Store, userId: string, password: string): Promise<void> {
  await store.users.updateOne({ _id: userId }, { $set: { passwordHash: await hashPassword(password), updatedAt: new Date() } });
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

export async function findUserByUsername(store: Store, username: string): Promise<UserDoc | null> {
  return store.users.findOne({ username: username.toLowerCase() });
}

/** Applies a validated profile change; returns the user after it and the fields that changed. */
export async function updateProfile(store: Store, userId: string, update: ProfileUpdate): Promise<{ user: UserDoc; changed: string[] } | null> {
  const before = await findUserById(store, userId);
  if (!before) return null;
  const set: Partial<UserDoc> = {};
  if (update.name !== undefined && update.name !== before.name) set.name = update.name;
  if (update.picture !== undefined && update.picture !== before.picture) set.picture = update.picture;
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
}

/**
 * Deletes a user's account and what only it used: sessions (signed out
 * everywhere), passkeys, personal access tokens and consents. The account goes
 * first, so every check of the user's tokens fails from then on. Grants and
 * refresh families are revoked by the caller (revokeUserGrants). Null when
 * there is no such user. Filters on userId: an operator's command, not a hot path.
 */
export async function deleteUserAccount(store: Store, userId: string): Promise<DeletedUserData | null> {
  if ((await store.users.deleteOne({ _id: userId })).deletedCount !== 1) return null;
  const [sessions, passkeys, personalAccessTokens, consents] = await Promise.all([
    store.sessions.deleteMany({ userId }).then((r) => r.deletedCount),
    store.passkeys.deleteMany({ userId }).then((r) => r.deletedCount),
    store.db.collection(PAT_COLLECTION).deleteMany({ userId }).then((r) => r.deletedCount),
    deleteConsents(store, { userId }),
  ]);
  return { sessions, passkeys, personalAccessTokens, consents };
}
