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
import { html, type SafeHtml } from '../html/html.js';
import { csrfField, sendPage } from '../html/layout.js';
import { endUserSessions, type SignOutDeps } from '../oauth/sign-out.js';
import { csrfGuard, signedInUser, type SignedIn } from './tokens.js';

export interface PasswordPageDeps extends SignOutDeps, SignInLimitDeps {
  /** Sessions idle for longer are over already (not ended again). */
  idleMs: number;
}

export const PASSWORD_PAGE = '/account/password';

const PasswordChange = z.object({
  current: z.string().max(1024),
  password: z.string().max(4096),
  confirm: z.string().max(4096),
});

interface PageOptions {
  error?: string;
  status?: number;
  captcha?: SafeHtml | null;
}

export function passwordPageRoutes(deps: PasswordPageDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  const limits = signInLimits(deps);

  async function passwordPage(req: Request, res: Response, { session, user }: SignedIn, opts: PageOptions & { forceCaptcha?: boolean } = {}) {
    const { settings, needed } = await limits.captchaNeeded(req, user.email);
    const captcha = settings.captcha_provider !== 'none' && (needed || opts.forceCaptcha) ? captchaFormFields(settings, '/login/captcha') : null;
    sendPage(res, {
      title: 'Change your password',
      status: opts.status,
      scripts: captcha ? ['captcha.js'] : [],
      body: html`<h1>Change your password</h1>
${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ''}
<form method="post" action="${PASSWORD_PAGE}">
${csrfField(session.csrf)}
<input type="text" name="username" autocomplete="username" value="${user.email}" hidden>
<label for="current">Current password</label>
<input id="current" name="current" type="password" autocomplete="current-password" required>
<label for="new-password">New password</label>
<input id="new-password" name="password" type="password" autocomplete="new-password" minlength="12" required>
<p class="muted">At least 12 characters. A few unrelated words make a good one; common and leaked passwords are refused.</p>
<label for="confirm">New password again</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="12" required>
${captcha ?? ''}
<button type="submit">Change password</button>
</form>
<p class="muted">Your other sessions will be signed out.</p>
<p><a href="/account">Back to your account</a></p>`,
    });
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
    sendPage(res, {
      title: 'Password changed',
      body: html`<h1>Password changed</h1>
<p>Your password is changed.${ended ? ` ${ended === 1 ? 'Your other session was' : `Your ${ended} other sessions were`} signed out.` : ''}</p>
<p><a href="/account">Back to your account</a></p>`,
    });
  });

  return router;
}
