// /account/password: the signed-in user changes their password (current
// password, the new one twice; CSRF). A wrong current password is a failed
// sign-in: the same limits and captcha as /login (api/verification/sign-in-limits.ts).
// The new password follows the password policy (security/password-policy.ts);
// once changed, the user's other sessions end as at sign-out.
import express, { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { hashPassword, verifyPassword } from '../../lib/security/password.js';
import { passwordProblem } from '../../lib/security/password-policy.js';
import { setPasswordHash } from '../../lib/store/users.js';
import { captchaFormFields } from '../verification/captcha.js';
import { signInLimits, type SignInLimitDeps } from '../verification/sign-in-limits.js';
import { PASSWORD_PAGE, passwordChangedPage, passwordPage as passwordPageView, type PasswordPageOptions } from '../views/password.js';
import { endUserSessions, type SignOutDeps } from '../oauth/sign-out.js';
import { csrfGuard, signedInUser, type SignedIn } from '../http/signed-in.js';

export interface PasswordPageDeps extends SignOutDeps, SignInLimitDeps {
  /** Sessions idle for longer are over already (not ended again). */
  idleMs: number;
}

const PasswordChange = z.object({
  current: z.string().max(1024),
  password: z.string().max(4096),
  confirm: z.string().max(4096),
});

export function passwordPageRoutes(deps: PasswordPageDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  const limits = signInLimits(deps);

  async function passwordPage(req: Request, res: Response, s: SignedIn, opts: PasswordPageOptions & { forceCaptcha?: boolean } = {}) {
    const { settings, needed } = await limits.captchaNeeded(req, s.user.email);
    const captcha = settings.captcha_provider !== 'none' && (needed || opts.forceCaptcha) ? captchaFormFields(settings, '/login/captcha') : null;
    passwordPageView(res, s, { ...opts, captcha });
  }

  router.get(PASSWORD_PAGE, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (s) await passwordPage(req, res, s);
  });

  router.post(PASSWORD_PAGE, form, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s)) return;
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
    const problem =
      password !== confirm
        ? 'The two new passwords are not the same.'
        : password === current
          ? 'Choose a password other than your current one.'
          : await passwordProblem(password, s.user.email).then((p) => (p ? `The new password ${p}.` : null));
    if (problem) return passwordPage(req, res, s, { error: problem, status: 400 });

    await setPasswordHash(deps.store, s.user._id, await hashPassword(password));
    const ended = await endUserSessions(deps, s.user._id, s.session.sid);
    deps.log.info('password changed', { user: s.user._id, sessionsEnded: ended });
    passwordChangedPage(res, ended);
  });

  return router;
}
