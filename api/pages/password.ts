// /account/password: the signed-in user changes their password (current
// password, the new one twice; CSRF). A wrong current password is a failed
// sign-in: the same limits and captcha as /login (api/sign-in-checks/sign-in-limits.ts).
// The new password follows the password policy (security/password-policy.ts);
// once changed, the user's other sessions end as at sign-out.
// An account without a usable password (created by "Sign in with …") sets
// its first one here instead: no current password, but a recent sign-in
// (REAUTH_MAX_AGE_SECONDS; a stale one signs in again, through the upstream).
import express, { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { hashPassword, verifyPassword } from '../../lib/security/password.js';
import { passwordProblem } from '../../lib/security/password-policy.js';
import { hasUsablePassword } from '../../lib/store/passwordless-users.js';
import { setFirstPassword } from '../../lib/store/sign-in-ways.js';
import { setPasswordHash } from '../../lib/store/users.js';
import { captchaFormFields } from '../sign-in-checks/captcha.js';
import { signInLimits, type SignInLimitDeps } from '../sign-in-checks/sign-in-limits.js';
import { passwordChangedPage, passwordPage as passwordPageView, type PasswordPageOptions } from '../views/password.js';
import { endUserSessions, type SignOutDeps } from '../http/sign-out.js';
import { csrfGuard, signedInUser, type SignedIn } from '../http/signed-in.js';
import { requireRecentSignIn } from '../http/session.js';
import { sendErrorPage } from '../html/layout.js';
import { PAGES } from '../paths.js';

export interface PasswordPageDeps extends SignOutDeps, SignInLimitDeps {
  /** Sessions idle for longer are over already (not ended again). */
  idleMs: number;
  /** Setting a first password needs a sign-in at most this old. */
  reauthMaxAgeMs: number;
}

const PasswordChange = z.object({
  current: z.string().max(1024),
  password: z.string().max(4096),
  confirm: z.string().max(4096),
});
const FirstPassword = PasswordChange.omit({ current: true });

/** What is wrong with the new password (the two copies differ, it is the current one, the policy refuses it), or null. */
async function newPasswordProblem(password: string, confirm: string, email: string, current?: string): Promise<string | null> {
  if (password !== confirm) return 'The two new passwords are not the same.';
  if (password === current) return 'Choose a password other than your current one.';
  const problem = await passwordProblem(password, email);
  return problem ? `The new password ${problem}.` : null;
}

export function passwordPageRoutes(deps: PasswordPageDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  const limits = signInLimits(deps);

  async function passwordPage(req: Request, res: Response, s: SignedIn, opts: PasswordPageOptions & { forceCaptcha?: boolean } = {}) {
    // Setting a first password checks no password: no captcha to ask for.
    if (!hasUsablePassword(s.user)) return passwordPageView(res, s, opts);
    const { settings, needed } = await limits.captchaNeeded(req, s.user.email);
    const captcha = settings.captcha_provider !== 'none' && (needed || opts.forceCaptcha) ? captchaFormFields(settings, PAGES.loginCaptcha) : null;
    passwordPageView(res, s, { ...opts, captcha });
  }

  /** Records the change and ends the user's other sessions (as at sign-out) after the password changed or was set. */
  async function done(res: Response, s: SignedIn, first: boolean) {
    const actor = { type: 'user', userId: s.user._id } as const;
    await deps.audit.record('password.changed', { actor, subject: { userId: s.user._id }, data: { first } });
    const ended = await endUserSessions(deps, s.user._id, s.session.sid, { by: 'account_change', actor });
    deps.log.info(first ? 'password set' : 'password changed', { user: s.user._id, sessionsEnded: ended });
    passwordChangedPage(res, ended, first);
  }

  router.get(PAGES.password, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (s) await passwordPage(req, res, s);
  });

  router.post(PAGES.password, form, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s)) return;
    if (!hasUsablePassword(s.user)) return setFirst(req, res, s);
    const parsed = PasswordChange.safeParse(req.body);
    if (!parsed.success) return passwordPage(req, res, s, { error: 'Fill in every field.', status: 400 });
    const { current, password, confirm } = parsed.data;
    // The current password is checked like a sign-in: slots first, given back when it is right.
    const begun = await limits.beginPassword(req, s.user.email, 'change-password');
    if (!begun.ok) return passwordPage(req, res, s, { error: begun.error, status: begun.status, forceCaptcha: begun.captcha });
    if (!(await verifyPassword(current, s.user.passwordHash))) {
      await limits.failed(req, 'change-password', s.user.email, 'bad current password');
      return passwordPage(req, res, s, { error: 'Your current password is not right.', status: 401 });
    }
    await begun.attempt.release();
    const problem = await newPasswordProblem(password, confirm, s.user.email, current);
    if (problem) return passwordPage(req, res, s, { error: problem, status: 400 });

    await setPasswordHash(deps.store, s.user._id, await hashPassword(password));
    await done(res, s, false);
  });

  /** The first password of a passwordless account: a recent sign-in stands in for the current password. */
  async function setFirst(req: Request, res: Response, s: SignedIn) {
    if (!requireRecentSignIn(res, s.session, deps.reauthMaxAgeMs, PAGES.password)) return;
    const parsed = FirstPassword.safeParse(req.body);
    if (!parsed.success) return passwordPage(req, res, s, { error: 'Fill in every field.', status: 400 });
    const problem = await newPasswordProblem(parsed.data.password, parsed.data.confirm, s.user.email);
    if (problem) return passwordPage(req, res, s, { error: problem, status: 400 });
    // Conditional on still having none: a password set meanwhile is changed only with it.
    if (!(await setFirstPassword(deps.store, s.user._id, await hashPassword(parsed.data.password)))) {
      return sendErrorPage(res, 409, 'Password already set', 'Your account has a password now. Reload the page to change it.');
    }
    await done(res, s, true);
  }

  return router;
}
