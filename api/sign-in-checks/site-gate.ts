// The site-scope gate, the one check every `site:*` grant passes at consent:
// the consenting user is a site admin, proves a second factor during this very
// consent (TOTP or backup code typed on the page, or a passkey just before),
// and types the confirmation phrase exactly. Codes count toward the same
// attempt limits as sign-in's second factor.
import type { Request } from 'express';
import { SITE_CONFIRMATION_PHRASE } from '../../lib/model/scopes.js';
import type { UserDoc } from '../../lib/model/users.js';
import type { AuthorizationRequestDoc } from '../../lib/model/pending-authorization.js';
import { hasPasskey } from '../../lib/store/passkeys.js';
import { verifySecondFactorCode } from '../../lib/verification/second-factor.js';
import type { SignInLimits } from './sign-in-limits.js';
import type { ApiContext } from '../context.js';
import { currentTimeMs } from '../../lib/runtime/clock.js';

/** A passkey used at this consent counts for this long (the page is still open). */
export const SITE_FACTOR_TTL_MS = 5 * 60_000;

export type SiteGateDeps = Pick<ApiContext, 'store' | 'kek' | 'audit'>;

export interface SiteGateStanding {
  admin: boolean;
  totpOrBackup: boolean;
  passkey: boolean;
}

/** What the consent page offers: only an admin with a second factor can pass. */
export async function siteGateStanding(deps: SiteGateDeps, user: UserDoc): Promise<SiteGateStanding> {
  return {
    admin: user.role === 'admin',
    totpOrBackup: Boolean(user.totp) || user.backupCodes.length > 0,
    passkey: await hasPasskey(deps.store, user._id),
  };
}

export const canPassSiteGate = (s: SiteGateStanding) => s.admin && (s.totpOrBackup || s.passkey);

/** Whether a passkey was verified for this request, by this user, moments ago. */
export function passkeyProvedHere(request: AuthorizationRequestDoc, userId: string): boolean {
  const f = request.siteFactor;
  return f !== null && f !== undefined && f.userId === userId && currentTimeMs() - f.at.getTime() < SITE_FACTOR_TTL_MS;
}

export type SiteGateResult = { ok: true; method: 'totp' | 'backup' | 'passkey' } | { ok: false; status: number; message: string };

export async function passSiteGate(
  deps: SiteGateDeps,
  limits: SignInLimits,
  req: Request,
  user: UserDoc,
  request: AuthorizationRequestDoc,
  input: { confirmation: string; code: string },
): Promise<SiteGateResult> {
  const standing = await siteGateStanding(deps, user);
  if (!standing.admin) return { ok: false, status: 403, message: 'Only a site admin can grant access to the whole instance.' };
  if (!canPassSiteGate(standing))
    return { ok: false, status: 403, message: 'Set up a second factor (authenticator app or passkey) before granting site access.' };
  if (input.confirmation !== SITE_CONFIRMATION_PHRASE) return { ok: false, status: 400, message: `Type exactly “${SITE_CONFIRMATION_PHRASE}” to confirm.` };
  if (passkeyProvedHere(request, user._id)) return { ok: true, method: 'passkey' };
  if (!input.code)
    return { ok: false, status: 400, message: 'Confirm with your second factor: a code from your authenticator app, a backup code, or your passkey.' };
  const begun = await limits.beginSecondFactor(req, user._id);
  if (!begun.ok) return { ok: false, status: begun.status, message: begun.error };
  const result = await verifySecondFactorCode(deps, user, input.code);
  if (!result.ok) {
    await limits.failed(req, 'otp', user.email, 'bad site-gate code');
    return { ok: false, status: 401, message: 'That code is not valid. Try again.' };
  }
  await begun.attempt.release();
  return { ok: true, method: result.method };
}
