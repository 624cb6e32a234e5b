// Accounts created by a first "Sign in with …" (the source allows sign-up).
// Such an account has no usable password: its passwordHash is NO_PASSWORD,
// which verifyPassword never accepts, so the account signs in only through
// its linked upstream account (or a passkey added later).
import { usernameFromEmail, type UserDoc } from '../model/users.js';
import { newId } from '../security/secrets.js';
import { isDuplicateKeyError, type Store } from './db.js';
import { repairUserKey, writeUserKeys } from './user-lookups.js';
import { currentDate } from '../runtime/clock.js';

/** The passwordHash of an account without a usable password (never a valid hash). */
export const NO_PASSWORD = '';

export const hasUsablePassword = (user: Pick<UserDoc, 'passwordHash'>) => user.passwordHash !== NO_PASSWORD;

/**
 * Creates the account; null when the email is taken. A taken username gets a
 * random suffix (the upstream's preferred username is only a hint).
 */
export async function createPasswordlessUser(
  store: Store,
  profile: { email: string; emailVerified: boolean; name: string | null; username: string | null },
): Promise<UserDoc | null> {
  const base = usernameFromEmail(profile.username && /^[a-z0-9][a-z0-9._-]{0,62}$/.test(profile.username) ? `${profile.username}@x` : profile.email);
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = currentDate();
    const user: UserDoc = {
      _id: newId(),
      email: profile.email,
      emailVerified: profile.emailVerified,
      username: attempt === 0 ? base : `${base.slice(0, 54)}-${newId().slice(0, 8).toLowerCase()}`,
      name: profile.name ?? '',
      picture: null,
      role: 'user',
      passwordHash: NO_PASSWORD,
      totp: null,
      totpPending: null,
      backupCodes: [],
      createdAt: now,
      updatedAt: now,
    };
    try {
      await store.users.insertOne(user);
      await writeUserKeys(store, user);
      return user;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      if (!/username/.test(String((err as Error).message))) {
        await repairUserKey(store, 'email', user.email);
        return null;
      }
    }
  }
  return null;
}
