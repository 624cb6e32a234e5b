// A user's TOTP authenticator and backup codes, kept on the user's document.
// Passkeys have a collection of their own (store/passkeys.ts).
import type { UserDoc } from '../model/users.js';
import type { Store } from './db.js';

type Totp = NonNullable<UserDoc['totp']>;
type PendingTotp = NonNullable<UserDoc['totpPending']>;

/** Keeps an enrollment until the user confirms it with a code. */
export async function startTotpEnrollment(store: Store, userId: string, pending: PendingTotp): Promise<void> {
  await store.users.updateOne({ _id: userId }, { $set: { totpPending: pending } });
}

/** Makes the confirmed enrollment the user's authenticator; `backupCodes` (hashes), when given, replace the user's. */
export async function enableTotp(store: Store, userId: string, totp: Totp, backupCodes?: string[]): Promise<void> {
  await store.users.updateOne({ _id: userId }, { $set: { totp, totpPending: null, ...(backupCodes ? { backupCodes } : {}) } });
}

export async function removeTotp(store: Store, userId: string): Promise<void> {
  await store.users.updateOne({ _id: userId }, { $set: { totp: null, totpPending: null } });
}

/** Records the time step of an accepted code; never moves backwards (two codes accepted at once). */
export async function recordTotpTimeStep(store: Store, userId: string, timeStep: number): Promise<void> {
  await store.users.updateOne({ _id: userId }, { $max: { 'totp.lastTimeStep': timeStep } });
}

/** Replaces the user's backup codes (keyed hashes). */
export async function replaceBackupCodes(store: Store, userId: string, hashes: string[]): Promise<void> {
  await store.users.updateOne({ _id: userId }, { $set: { backupCodes: hashes } });
}

/** Removes a used backup code (its single use is guarded by claimOnce before). */
export async function removeBackupCode(store: Store, userId: string, hash: string): Promise<void> {
  await store.users.updateOne({ _id: userId }, { $pull: { backupCodes: hash } });
}
