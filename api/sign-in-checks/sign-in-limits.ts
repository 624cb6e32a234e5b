// Limits on failed sign-ins, for every sign-in path: the password form, the
// second factor (code or passkey), passkey sign-in, and the change-password
// form (a wrong current password is a failed sign-in). Every attempt takes
// its slots *before* anything is verified (store/rate-limits.ts: parallel
// guesses cannot run past a limit) and gives them back when it succeeds, so
// the slots held in a window are the failures.
//
// - per account (`login:<email>`) or, for second factors, per user
//   (`second-factor:<user id>`): SIGNIN_LIMIT_PER_ACCOUNT per 15 minutes;
// - per client address (`sign-in-ip:<address>`, IPv6 by its /64): SIGNIN_LIMIT_PER_IP per 15
//   minutes, with backoff (each window that ran out halves the next);
// - site-wide (`sign-in-global`): SIGNIN_LIMIT_GLOBAL password failures per
//   15 minutes.
//
// With a captcha provider (site setting `captcha_provider`), the password form
// asks for the captcha once the account or the address has
// SIGNIN_CAPTCHA_AFTER failures in the window, or the site-wide limit is
// reached; beyond the site-wide limit a solved captcha still gets through.
// With provider `none` there is no captcha: beyond the site-wide limit
// password sign-ins are refused (429) until the window ends, with a warning
// in the log once per window.
//
// Failures are logged at info level with the client address and a hashed
// account reference (never the email): the first 16 hex characters of
// HMAC-SHA256 of the normalized email, keyed by a key derived from the KEK.
// Each is also recorded in the audit trail (`login.failed`, with the same
// reference): every refusal of every path passes through here, and so do
// refusals of a disabled account (`disabled`).
import { createHmac, hkdfSync } from 'node:crypto';
import type { Request } from 'express';
import type { SiteSettings } from '../../lib/model/site-settings.js';
import type { LimitRule } from '../../lib/model/rate-limits.js';
import { hasReached, takeAttempt, takeAttempts, type Attempt } from '../../lib/store/rate-limits.js';
import { getSiteSettings } from '../../lib/store/settings.js';
import { claimOnce } from '../../lib/store/single-use.js';
import { clientAddress } from '../http/request-limits.js';
import { hasCaptchaAnswer, issuePowChallenge, SIGN_IN_CAPTCHA, verifyCaptcha } from '../../lib/verification/captcha.js';
import { captchaAnswerFrom } from './captcha.js';
import type { ApiContext } from '../context.js';
import { currentTimeMs } from '../../lib/runtime/clock.js';
import type { AuditActor } from '../../lib/model/audit-events.js';
import type { UserDoc } from '../../lib/model/users.js';
import { findUserByEmail, findUserById } from '../../lib/store/users.js';
import { loginMethod } from '../http/session.js';

export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const TOO_MANY_FAILURES = 'Too many failed attempts. Wait 15 minutes and try again.';
const SITE_BUSY = 'Too many failed sign-ins on this site right now. Wait a few minutes and try again.';
const CAPTCHA_FIRST = 'Complete the check below, then sign in.';

export type SignInLimitDeps = Pick<ApiContext, 'store' | 'log' | 'kek' | 'limits' | 'outbound' | 'audit'>;

/** How a refused attempt is answered: the status, the message, and whether the form must show the captcha. */
export interface Refusal {
  status: 400 | 401 | 429;
  error: string;
  captcha: boolean;
}

export type Begun = { ok: true; attempt: Attempt } | ({ ok: false } & Refusal);

export type SignInMethod = 'password' | 'otp' | 'passkey' | 'change-password';

/** Why a sign-in was refused, as `login.failed` records it (lib/model/audit-events.ts). */
export type LoginFailureReason = 'unknown_account' | 'wrong_password' | 'second_factor_failed' | 'passkey_failed' | 'disabled' | 'limited' | 'captcha';

/** The user a failure is about: known by id (second factors), by the email tried, or not at all (a passkey that did not verify). */
type Who = { userId: string } | { email: string | null };

export interface SignInLimits {
  /** The site settings and whether the password form shows the captcha (for the account too, when known). */
  captchaNeeded(req: Request, email?: string): Promise<{ settings: SiteSettings; needed: boolean }>;
  /** A password attempt for `email` (the form's captcha answer included): the slots, or why not. */
  beginPassword(req: Request, email: string, method?: SignInMethod): Promise<Begun>;
  /** A second-factor attempt of a user who passed the password. */
  beginSecondFactor(req: Request, userId: string): Promise<Begun>;
  /** A passkey sign-in attempt (no account known yet). */
  beginPasskey(req: Request): Promise<Begun>;
  /** Records and logs a failure whose slots the caller keeps. */
  failed(req: Request, method: SignInMethod, email: string | null, reason: string): Promise<void>;
  /** Records a sign-in refused because the account is disabled (after the right credentials); `amr`: how far it got. */
  disabled(req: Request, user: UserDoc, amr: string[]): Promise<void>;
  /** JSON for /assets/captcha.js: a proof-of-work challenge for the sign-in form (limited per address). */
  powChallenge(req: Request): Promise<{ status: number; body: Record<string, unknown> }>;
}

export function signInLimits(deps: SignInLimitDeps): SignInLimits {
  const { store, limits } = deps;
  const account: LimitRule = { max: limits.signInPerAccount, windowMs: SIGN_IN_WINDOW_MS };
  const address: LimitRule = { max: limits.signInPerIp, windowMs: SIGN_IN_WINDOW_MS, backoff: true };
  const global: LimitRule = { max: limits.signInGlobal, windowMs: SIGN_IN_WINDOW_MS };
  const keys = {
    account: (email: string) => `login:${email}`,
    user: (userId: string) => `second-factor:${userId}`,
    address: (req: Request) => `sign-in-ip:${clientAddress(req)}`,
    global: 'sign-in-global',
  };
  const logKey = Buffer.from(hkdfSync('sha256', deps.kek.key, Buffer.alloc(0), 'keyflow sign-in log', 32));
  const accountRef = (email: string) => createHmac('sha256', logKey).update(email.trim().toLowerCase()).digest('hex').slice(0, 16);

  async function captchaNeeded(req: Request, email?: string) {
    const settings = await getSiteSettings(store);
    if (settings.captcha_provider === 'none') return { settings, needed: false };
    const after = limits.signInCaptchaAfter;
    const reached = await Promise.all([
      hasReached(store, keys.address(req), address, after),
      hasReached(store, keys.global, global, limits.signInGlobal),
      email === undefined ? false : hasReached(store, keys.account(email), account, after),
    ]);
    return { settings, needed: reached.some(Boolean) };
  }

  /**
   * The audit record of a refusal (`login.failed`, durable before the answer):
   * the account by reference, the user when the account exists, the actor
   * the signed-in user for a check of a signed-in browser (change of
   * password, the site gate) and anonymous otherwise.
   */
  async function audit(req: Request, method: SignInMethod, who: Who, reason: LoginFailureReason | null) {
    const email = 'email' in who ? who.email : null;
    const user = 'userId' in who ? await findUserById(store, who.userId) : email === null ? null : await findUserByEmail(store, email);
    const tried = email ?? user?.email;
    const sessionUser = req.kfSession?.userId;
    const actor: AuditActor = sessionUser ? { type: 'user', userId: sessionUser } : { type: 'anonymous' };
    // A second factor (code, or a passkey for a known user) is its own method; a passkey sign-in names no account.
    const secondFactor = method === 'otp' || (method === 'passkey' && user !== null);
    const wrong: LoginFailureReason = secondFactor
      ? 'second_factor_failed'
      : method === 'passkey'
        ? 'passkey_failed'
        : user
          ? 'wrong_password'
          : 'unknown_account';
    await deps.audit.record('login.failed', {
      outcome: 'failure',
      actor,
      subject: user ? { userId: user._id } : {},
      data: {
        method: secondFactor ? 'second_factor' : method === 'passkey' ? 'passkey' : 'password',
        reason: reason ?? wrong,
        account: tried ? accountRef(tried) : undefined,
      },
    });
  }

  /** Logs (`reason`) and records (`audited`; null: the credentials were wrong, which way `audit` tells) a refused attempt. */
  async function log(req: Request, method: SignInMethod, who: Who, reason: string, audited: LoginFailureReason | null) {
    const email = 'email' in who ? who.email : null;
    deps.log.info('sign-in failed', { method, account: email === null ? undefined : accountRef(email), ip: req.ip, reason });
    await audit(req, method, who, audited);
  }

  /** Once per window, across processes: the site-wide limit refuses password sign-ins. */
  async function warnSiteLimit() {
    const window = Math.floor(currentTimeMs() / SIGN_IN_WINDOW_MS);
    if (await claimOnce(store, `sign-in-global-warned:${window}`, 2 * SIGN_IN_WINDOW_MS)) {
      deps.log.warn(
        'site-wide sign-in limit reached: password sign-ins are refused until the window ends (set a captcha_provider to ask for a captcha instead)',
        {
          limit: limits.signInGlobal,
        },
      );
    }
  }

  async function beginPassword(req: Request, email: string, method: SignInMethod = 'password'): Promise<Begun> {
    const { settings, needed } = await captchaNeeded(req, email);
    const answer = captchaAnswerFrom(req.body, req.ip);
    // The form did not show the captcha yet: show it, nothing was verified, nothing is counted.
    if (needed && !hasCaptchaAnswer(answer)) return { ok: false, status: 400, error: CAPTCHA_FIRST, captcha: true };
    const personal = await takeAttempts(store, [
      [keys.account(email), account],
      [keys.address(req), address],
    ]);
    if (!personal.allowed) {
      await log(req, method, { email }, 'limit', 'limited');
      return { ok: false, status: 429, error: TOO_MANY_FAILURES, captcha: needed };
    }
    const site = await takeAttempt(store, keys.global, global);
    const taken: Attempt[] = [personal.attempt, ...(site.allowed ? [site.attempt] : [])];
    const attempt: Attempt = { release: async () => void (await Promise.all(taken.map((a) => a.release()))) };
    if (!site.allowed && !needed) {
      await personal.attempt.release();
      if (settings.captcha_provider !== 'none') return { ok: false, status: 400, error: CAPTCHA_FIRST, captcha: true };
      await warnSiteLimit();
      await log(req, method, { email }, 'site limit', 'limited');
      return { ok: false, status: 429, error: SITE_BUSY, captcha: false };
    }
    if (needed) {
      // A failed captcha keeps the slots: it counts as a failed sign-in.
      const checked = await verifyCaptcha(deps, settings, SIGN_IN_CAPTCHA, answer);
      if (!checked.ok) {
        await log(req, method, { email }, 'captcha', 'captcha');
        return { ok: false, status: 400, error: checked.error, captcha: true };
      }
    }
    return { ok: true, attempt };
  }

  async function begin(req: Request, limitsFor: ReadonlyArray<readonly [string, LimitRule]>, method: SignInMethod, who: Who): Promise<Begun> {
    const result = await takeAttempts(store, limitsFor);
    if (result.allowed) return { ok: true, attempt: result.attempt };
    await log(req, method, who, 'limit', 'limited');
    return { ok: false, status: 429, error: TOO_MANY_FAILURES, captcha: false };
  }

  return {
    captchaNeeded,
    beginPassword,
    beginSecondFactor: (req, userId) =>
      begin(
        req,
        [
          [keys.user(userId), account],
          [keys.address(req), address],
        ],
        'otp',
        { userId },
      ),
    beginPasskey: (req) => begin(req, [[keys.address(req), address]], 'passkey', { email: null }),
    async failed(req, method, email, reason) {
      // Second factors and passkeys count toward the site-wide figure too (the captcha threshold); only passwords are gated by it.
      if (method === 'otp' || method === 'passkey') await takeAttempt(store, keys.global, global);
      await log(req, method, { email }, reason, null);
    },
    async disabled(req, user, amr) {
      deps.log.info('sign-in refused: account disabled', { user: user._id, ip: req.ip });
      await deps.audit.record('login.failed', {
        outcome: 'failure',
        actor: { type: 'anonymous' },
        subject: { userId: user._id },
        data: { method: loginMethod(amr), reason: 'disabled', account: accountRef(user.email) },
      });
    },
    async powChallenge(req) {
      const settings = await getSiteSettings(store);
      if (settings.captcha_provider !== 'pow') return { status: 404, body: { error: 'not_found', error_description: 'the sign-in form has no proof of work' } };
      // Every challenge is a stored document: limited per address like other anonymous writes.
      const limit = await takeAttempt(store, `sign-in-pow:${clientAddress(req)}`, { max: limits.requestsPerIp, windowMs: 60_000 });
      if (!limit.allowed) return { status: 429, body: { error: 'slow_down', error_description: 'too many requests from this address' } };
      return { status: 200, body: { pow_challenge: await issuePowChallenge(store, SIGN_IN_CAPTCHA), pow_difficulty: settings.pow_difficulty } };
    },
  };
}
