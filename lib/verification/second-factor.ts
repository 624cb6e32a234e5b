// A user's second factor: whether they have one, and checking a code: TOTP
// (otplib, with replay protection) or a backup code (single use). Shared by
// sign-in, the authorization request's acr_values=mfa, step-up confirmation
// and the site-scope gate at consent.
import { verify as verifyTotpCode } from 'otplib';
import { currentTimeMs } from '../runtime/clock.js';
import { open, type Kek } from '../security/kek.js';
import { hashBackupCode, normalizeBackupCode } from '../security/backup-codes.js';
import type { UserDoc } from '../model/users.js';
import type { Store } from '../store/db.js';
import { hasPasskey } from '../store/passkeys.js';
import { recordTotpTimeStep, removeBackupCode } from '../store/second-factors.js';
import { claimOnce } from '../store/single-use.js';
import type { AuditTrail } from '../audit/audit-trail.js';

/** True when the user has a second factor that can raise the session to acr=mfa (TOTP or a passkey). */
export async function hasSecondFactor(store: Store, user: UserDoc): Promise<boolean> {
  return Boolean(user.totp) || (await hasPasskey(store, user._id));
}

export type SecondFactorResult = { ok: true; method: 'totp' | 'backup' } | { ok: false };

export function totpSecret(kek: Kek, user: Pick<UserDoc, '_id'>, sealed: NonNullable<UserDoc['totp']>['secret']): string {
  return open(kek, sealed, `totp:${user._id}`, 'a TOTP secret').toString('utf8');
}

/** The time step a 6-digit code matches (±30 s, after `afterTimeStep` when given), or null. */
export async function checkTotpCode(secret: string, input: string, afterTimeStep: number | null = null): Promise<number | null> {
  const token = input.replace(/\s/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const result = await verifyTotpCode({
    secret,
    token,
    epoch: Math.floor(currentTimeMs() / 1000),
    epochTolerance: 30,
    ...(afterTimeStep !== null ? { afterTimeStep } : {}),
  }).catch(() => null);
  return result?.valid && 'timeStep' in result ? result.timeStep : null;
}

export interface SecondFactorDeps {
  store: Store;
  kek: Kek;
  /** A spent backup code is recorded (`backup_code.used`), whichever check spent it. */
  audit: AuditTrail;
}

/** A 6-digit TOTP code (±30 s) not used before, or one of the user's backup codes. */
export async function verifySecondFactorCode(deps: SecondFactorDeps, user: UserDoc, input: string): Promise<SecondFactorResult> {
  const { store, kek } = deps;
  if (/^\d{6}$/.test(input.replace(/\s/g, '')) && user.totp) {
    const last = user.totp.lastTimeStep;
    const timeStep = await checkTotpCode(totpSecret(kek, user, user.totp.secret), input, last);
    if (timeStep === null) return { ok: false };
    // Each time step is used once, even when the same code arrives twice at the same moment.
    if (!(await claimOnce(store, `totp:${user._id}:${timeStep}`, 5 * 60_000))) return { ok: false };
    await recordTotpTimeStep(store, user._id, timeStep);
    return { ok: true, method: 'totp' };
  }
  const backup = normalizeBackupCode(input);
  if (backup) {
    const hash = hashBackupCode(kek, backup);
    if (user.backupCodes.includes(hash) && (await claimOnce(store, `backup:${user._id}:${hash}`, 400 * 24 * 3600_000))) {
      await removeBackupCode(store, user._id, hash);
      await deps.audit.record('backup_code.used', {
        actor: { type: 'user', userId: user._id },
        subject: { userId: user._id },
        data: { remaining: user.backupCodes.length - 1 },
      });
      return { ok: true, method: 'backup' };
    }
  }
  return { ok: false };
}
