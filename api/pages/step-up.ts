// The step-up 2FA confirmation page: /oauth/2fa?challenge_id=… sends a
// signed-out user through /login and back; a user with neither TOTP nor a
// passkey learns how to enroll and the app gets access_denied; otherwise it
// shows the app and the action, a checkbox echoing the action, and the
// factors (authentication code: TOTP or backup code; passkey). Answers go to
// /api/oauth/2fa/authorize (form: confirm with a code, or deny) and to the
// passkey endpoints (JSON, driven by /assets/webauthn.js). What an answer
// does is decided in lib/step-up/confirmation.ts.
import express, { Router, type Request, type Response } from 'express';
import { hasPasskey } from '../../lib/store/passkeys.js';
import { takeAttempt } from '../../lib/store/rate-limits.js';
import type { SessionDoc } from '../../lib/model/sessions.js';
import type { UserDoc } from '../../lib/model/users.js';
import { captchaAnswerFrom, captchaFormFields } from '../sign-in-checks/captcha.js';
import { captchaRequired } from '../../lib/model/captcha.js';
import type { StepUpChallengeDoc } from '../../lib/model/step-up-challenge.js';
import { getSiteSettings } from '../../lib/store/settings.js';
import { verifySecondFactorCode, hasSecondFactor } from '../../lib/verification/second-factor.js';
import { activeSudoWindow } from '../../lib/step-up/sudo-windows.js';
import { authenticationOptions, relyingParty, verifyPasskey } from '../sign-in-checks/webauthn.js';
import {
  CODE_LIMIT,
  codeLimitKey,
  GONE,
  stepUpConfirmation,
  TOO_MANY,
  type Loaded,
  type Outcome,
  type StepUpConfirmationDeps,
} from '../../lib/step-up/confirmation.js';
import { sendErrorPage } from '../html/layout.js';
import { hasValidCsrf, type SessionDeps } from '../http/session.js';
import { sessionUser } from '../http/signed-in.js';
import { fieldsOf, raw } from '../http/input.js';
import { ChallengeQuery } from '../protocol/step-up.js';
import { confirmPage as confirmPageView, enrollPage, sudoConfirmPage, type ConfirmPageOptions } from '../views/step-up.js';
import { PAGES, STEP_UP_PATHS } from '../paths.js';
import type { ApiContext } from '../context.js';

export type StepUpPageDeps = StepUpConfirmationDeps & SessionDeps & Pick<ApiContext, 'audit'> & { issuer: string };

/** The confirmation form: each field is compared or type-checked where it is used. */
const ConfirmForm = fieldsOf({
  challenge_id: raw,
  decision: raw,
  confirm_action: raw,
  code: raw,
  sudo: raw,
  captcha_token: raw,
  pow_challenge: raw,
  pow_nonce: raw,
});
/** The passkey answer's query flags (set by /assets/step-up.js) and its JSON body (checked by verifyPasskey and captchaAnswerFrom). */
const PasskeyQuery = fieldsOf({ confirm_action: raw, sudo: raw });
const PasskeyAnswer = fieldsOf({ response: raw, captcha: raw });

export function stepUpPageRoutes(deps: StepUpPageDeps): Router {
  const router = Router();
  const rp = relyingParty(deps.issuer);
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  const json = express.json({ limit: '64kb' });
  const { load, deny, authorize, authorizeSudo, maybeOpenSudo, sudoMinutes, sudoKey } = stepUpConfirmation(deps);

  const pagePath = (id: string) => `${STEP_UP_PATHS.page}?challenge_id=${id}`;
  const loginUrl = (id: string) => `${PAGES.login}?next=${encodeURIComponent(pagePath(id))}`;

  /** The captcha's part of the form (null when the gate does not apply). */
  async function captchaFields(challenge: StepUpChallengeDoc) {
    const settings = await getSiteSettings(deps.store);
    return captchaRequired(settings, challenge) ? captchaFormFields(settings, `${STEP_UP_PATHS.info}?challenge_id=${challenge._id}`) : null;
  }

  /** Sudo mode: within an open window the checkbox alone confirms; otherwise the factors, with the opt-in when enabled. */
  async function confirmPage(res: Response, session: SessionDoc, loaded: Loaded, user: UserDoc, opts: ConfirmPageOptions = {}): Promise<void> {
    const minutes = await sudoMinutes();
    if (minutes > 0 && (await activeSudoWindow(deps.store, sudoKey(session, user, loaded)))) return sudoConfirmPage(res, session, loaded, opts);
    const factors = {
      sudoMinutes: minutes,
      passkeys: await hasPasskey(deps.store, user._id),
      codes: Boolean(user.totp) || user.backupCodes.length > 0,
      captcha: await captchaFields(loaded.challenge),
    };
    confirmPageView(res, session, loaded, factors, opts);
  }

  function render(res: Response, outcome: Outcome, again: () => Promise<void>) {
    if (outcome.kind === 'redirect') return res.redirect(303, outcome.url);
    if (outcome.error === GONE) return sendErrorPage(res, outcome.status, 'Request expired', GONE);
    return again();
  }

  router.get(STEP_UP_PATHS.page, async (req: Request, res: Response) => {
    const session = req.kfSession;
    const loaded = await load(ChallengeQuery.parse(req.query).challenge_id);
    if (!loaded) return sendErrorPage(res, 400, 'Request expired', GONE);
    const user = await sessionUser(deps, req);
    if (!session || !user) return res.redirect(303, loginUrl(loaded.challenge._id));
    if (!(await hasSecondFactor(deps.store, user))) {
      // Nothing to confirm with: the challenge ends as denied and the app gets access_denied.
      const outcome = await deny(loaded, user._id, 'denied', 'the user has no second factor enrolled');
      if (outcome.kind !== 'redirect') return sendErrorPage(res, outcome.status, 'Request expired', GONE);
      return enrollPage(res, loaded, outcome.url);
    }
    await confirmPage(res, session, loaded, user);
  });

  router.post(STEP_UP_PATHS.authorize, form, async (req: Request, res: Response) => {
    const session = req.kfSession;
    if (!session || !hasValidCsrf(req, session)) return sendErrorPage(res, 400, 'Session expired', 'Your session expired. Go back and try again.');
    const body = ConfirmForm.parse(req.body);
    const loaded = await load(body.challenge_id);
    if (!loaded) return sendErrorPage(res, 400, 'Request expired', GONE);
    const user = await sessionUser(deps, req);
    if (!user) return res.redirect(303, loginUrl(loaded.challenge._id));
    const again = (outcome: Extract<Outcome, { kind: 'page' }>) => () =>
      confirmPage(res, session, loaded, user, { error: outcome.error, status: outcome.status });

    if (body.decision === 'deny') {
      const outcome = await deny(loaded, user._id, 'denied', 'the user denied the request');
      return render(res, outcome, outcome.kind === 'page' ? again(outcome) : async () => {});
    }
    const minutes = await sudoMinutes();
    if (body.decision === 'sudo') {
      const outcome = await authorizeSudo(loaded, user, session, body.confirm_action === 'yes', minutes);
      return render(res, outcome, outcome.kind === 'page' ? again(outcome) : async () => {});
    }
    const code = typeof body.code === 'string' ? body.code.slice(0, 40) : '';
    const outcome = await authorize(
      loaded,
      user,
      body.confirm_action === 'yes',
      async () => {
        if (code.trim() === '') return { ok: false, consume: false, error: 'Enter an authentication code or use a passkey.' };
        const limit = await takeAttempt(deps.store, codeLimitKey(user), CODE_LIMIT);
        if (!limit.allowed) return { ok: false, consume: false, status: TOO_MANY.status, error: TOO_MANY.error };
        const result = await verifySecondFactorCode(deps, user, code);
        return result.ok ? { ok: true, method: result.method } : { ok: false, consume: true };
      },
      captchaAnswerFrom(body, req.ip),
    );
    await maybeOpenSudo(outcome, minutes > 0 && body.sudo === 'yes', session, user, loaded);
    await render(res, outcome, outcome.kind === 'page' ? again(outcome) : async () => {});
  });
  router.all(STEP_UP_PATHS.authorize, (_req, res) => sendErrorPage(res, 405, 'Not allowed', 'Use the confirmation page.'));

  // Passkeys: JSON endpoints driven by /assets/webauthn.js, bound to the challenge by its id in the URL.
  async function passkeyContext(req: Request, res: Response): Promise<{ session: SessionDoc; loaded: Loaded; user: UserDoc } | null> {
    const session = req.kfSession;
    const fail = (status: number, description: string) =>
      void res.status(status).set('Cache-Control', 'no-store').json({ error: 'invalid_request', error_description: description });
    if (!session || !hasValidCsrf(req, session)) return (fail(403, 'missing or wrong CSRF token'), null);
    const loaded = await load(ChallengeQuery.parse(req.query).challenge_id);
    if (!loaded) return (fail(400, GONE), null);
    const user = await sessionUser(deps, req);
    if (!user) return (fail(401, 'Sign in first.'), null);
    return { session, loaded, user };
  }

  router.post(STEP_UP_PATHS.passkeyOptions, json, async (req: Request, res: Response) => {
    const ctx = await passkeyContext(req, res);
    if (!ctx) return;
    res.set('Cache-Control', 'no-store').json(await authenticationOptions(deps.store, rp, ctx.session, ctx.user));
  });

  router.post(STEP_UP_PATHS.passkey, json, async (req: Request, res: Response) => {
    const ctx = await passkeyContext(req, res);
    if (!ctx) return;
    // /assets/step-up.js adds confirm_action=yes to this URL while the box is ticked.
    const query = PasskeyQuery.parse(req.query);
    const body = PasskeyAnswer.parse(req.body);
    const outcome = await authorize(
      ctx.loaded,
      ctx.user,
      query.confirm_action === 'yes',
      async () => {
        const passkey = await verifyPasskey(deps.store, rp, ctx.session, body.response, ctx.user._id);
        return passkey ? { ok: true, method: 'passkey' } : { ok: false, consume: true };
      },
      captchaAnswerFrom(body.captcha, req.ip),
    );
    // /assets/step-up.js adds sudo=yes while "Don't ask again" is ticked.
    await maybeOpenSudo(outcome, query.sudo === 'yes' && (await sudoMinutes()) > 0, ctx.session, ctx.user, ctx.loaded);
    if (outcome.kind === 'redirect') return res.set('Cache-Control', 'no-store').json({ redirect: outcome.url });
    res.status(outcome.status).set('Cache-Control', 'no-store').json({ error: 'invalid_request', error_description: outcome.error });
  });

  return router;
}
