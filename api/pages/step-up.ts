// The step-up 2FA confirmation page (issue 6): /oauth/2fa?challenge_id=…
// sends a signed-out user through /login and back; a user with neither TOTP nor
// a passkey learns how to enroll and the app gets access_denied; otherwise it
// shows the app and the action, a checkbox echoing the action, and the
// factors (authentication code: TOTP or backup code; passkey). Answers go to
// /api/oauth/2fa/authorize (form: confirm with a code, or deny) and to the
// passkey endpoints (JSON, driven by /assets/webauthn.js). Every path that
// confirms goes through `authorize()`: the one place where the captcha gate
// (issue 6 item 4) and the sudo path (item 5) plug in.
import express, { Router, type Request, type Response } from 'express';
import type { StepUpChallengeDoc, StepUpMethod } from '../../lib/domain/step-up-challenge.js';
import { confirmStepUpFlow, denyStepUpFlow, failStepUpFlow } from '../../lib/flows/step-up-challenge.js';
import type { Kek } from '../../lib/security/kek.js';
import { hashSecret, newSecret } from '../../lib/security/secrets.js';
import type { ClientDoc } from '../../lib/store/clients.js';
import { hasPasskey } from '../../lib/store/passkeys.js';
import { takeAttempt } from '../../lib/store/rate-limits.js';
import type { SessionDoc } from '../../lib/store/sessions.js';
import { findStepUpChallenge, recordStepUpState } from '../../lib/store/step-up.js';
import { findUserById, type UserDoc } from '../../lib/store/users.js';
import { getSiteSettings } from '../../lib/store/settings.js';
import { captchaAnswerFrom, captchaFormFields, captchaRequired, verifyCaptcha, type CaptchaAnswer } from '../verification/captcha.js';
import { verifySecondFactorCode } from '../verification/second-factor.js';
import { activeSudoWindow, openSudoWindow } from '../verification/sudo.js';
import { authenticationOptions, relyingParty, verifyPasskey } from '../verification/webauthn.js';
import { html } from '../html/html.js';
import { csrfField, sendErrorPage, sendPage } from '../html/layout.js';
import { hasValidCsrf, type SessionDeps } from '../http/session.js';
import { hasSecondFactor } from '../oauth/authorization-flow.js';
import { ChallengeQuery, isChallengeId, STEP_UP_PATHS, type StepUpDeps } from '../routes/step-up.js';
import { fieldsOf, raw } from '../http/input.js';

export type StepUpPageDeps = StepUpDeps & SessionDeps & { kek: Kek };

/**
 * Code attempts (TOTP or backup code, and failed captchas) per user (spec
 * Limits: 8 per 5 minutes), halved after each window that ran out: someone
 * guessing a 6-digit code keeps retrying. A passkey assertion does not count:
 * it signs a challenge taken once from the session, so there is nothing to
 * guess, and the one factor that cannot be guessed stays usable after codes ran out.
 */
const CODE_LIMIT = { max: 8, windowMs: 5 * 60_000, backoff: true };
const codeLimitKey = (user: UserDoc) => `2fa-totp:${user._id}`;
const GONE = 'This confirmation request has expired or was already answered. Go back to the application and start again.';

interface Loaded {
  challenge: StepUpChallengeDoc;
  client: ClientDoc;
}

/** Where the app gets the answer: its pinned redirect_uri with `code` or `error`, and `state`. */
function appRedirect(challenge: StepUpChallengeDoc, params: Record<string, string>): string {
  const url = new URL(challenge.redirectUri);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  if (challenge.state !== null) url.searchParams.set('state', challenge.state);
  return url.href;
}
const deniedRedirect = (challenge: StepUpChallengeDoc, description: string) => appRedirect(challenge, { error: 'access_denied', error_description: description });

/** What an answer leads to: the app (redirect) or a page of ours (not consumed, or gone). */
type Outcome = { kind: 'redirect'; url: string; confirmed?: boolean } | { kind: 'page'; status: number; error: string };

const TOO_MANY = { kind: 'page', status: 429, error: 'Too many attempts. Wait a few minutes and try again.' } as const satisfies Outcome;

/** The sudo window's error when it ended between page load and submit: the page shows the factor form again, nothing consumed. */
const SUDO_ENDED = 'Your "don\'t ask again" period has ended. Confirm with your second factor.';

/** A factor proof, checked only after the checks before it passed (so a bad request never consumes a factor). */
type Proof = () => Promise<{ ok: true; method: StepUpMethod } | { ok: false; status?: number; error?: string; consume: boolean }>;

/** The confirmation form: each field is compared or type-checked where it is used. */
const ConfirmForm = fieldsOf({ challenge_id: raw, decision: raw, confirm_action: raw, code: raw, sudo: raw, captcha_token: raw, pow_challenge: raw, pow_nonce: raw });
/** The passkey answer's query flags (set by /assets/step-up.js) and its JSON body (checked by verifyPasskey and captchaAnswerFrom). */
const PasskeyQuery = fieldsOf({ confirm_action: raw, sudo: raw });
const PasskeyAnswer = fieldsOf({ response: raw, captcha: raw });

export function stepUpPageRoutes(deps: StepUpPageDeps): Router {
  const router = Router();
  const rp = relyingParty(deps.issuer);
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  const json = express.json({ limit: '64kb' });

  async function load(id: unknown): Promise<Loaded | null> {
    if (!isChallengeId(id)) return null;
    const challenge = await findStepUpChallenge(deps.store, id);
    const client = challenge && challenge.status === 'created' ? await deps.findClient(challenge.clientId) : null;
    return challenge && client ? { challenge, client } : null;
  }

  const pagePath = (id: string) => `${STEP_UP_PATHS.page}?challenge_id=${id}`;
  const loginUrl = (id: string) => `/login?next=${encodeURIComponent(pagePath(id))}`;

  async function deny(loaded: Loaded, userId: string | null, reason: 'denied' | 'error', description: string): Promise<Outcome> {
    // An ended workflow (expired or answered) refuses like a consumed challenge.
    const answer = await denyStepUpFlow(deps.flows, loaded.challenge._id, { userId, reason });
    if (answer.ended || !answer.value.ok) return { kind: 'page', status: 400, error: GONE };
    // The workflow projects this too, a moment later; written here so a reload never shows the form again.
    await recordStepUpState(deps.store, loaded.challenge._id, reason === 'error' ? 'error' : 'denied', userId, null);
    deps.log.info('step-up challenge denied', { client: loaded.client._id, user: userId, reason });
    return { kind: 'redirect', url: deniedRedirect(loaded.challenge, description) };
  }

  /**
   * Confirms a challenge: the checkbox, then (here) the captcha gate, then the
   * factor. A valid factor issues the code; a failed one consumes the challenge.
   */
  async function authorize(loaded: Loaded, user: UserDoc, ticked: boolean, proof: Proof, captcha: CaptchaAnswer = {}): Promise<Outcome> {
    if (!ticked) return { kind: 'page', status: 400, error: 'Tick the box to confirm the action first.' };
    // The captcha gate (issue 6 item 4), before any factor is checked: a failed
    // captcha shows the page again and does not consume the challenge, but it
    // counts toward the code attempts (8 per 5 minutes per user). Counted
    // before the check (which may call the provider), given back when it passes.
    const settings = await getSiteSettings(deps.store);
    if (captchaRequired(settings, loaded.challenge)) {
      const limit = await takeAttempt(deps.store, codeLimitKey(user), CODE_LIMIT);
      if (!limit.allowed) return TOO_MANY;
      const checked = await verifyCaptcha(deps, settings, loaded.challenge._id, captcha);
      if (!checked.ok) {
        deps.log.info('step-up captcha failed', { client: loaded.client._id, user: user._id });
        return { kind: 'page', status: 400, error: checked.error };
      }
      await limit.attempt.release();
    }
    const factor = await proof();
    if (!factor.ok) {
      if (!factor.consume) return { kind: 'page', status: factor.status ?? 400, error: factor.error ?? 'That did not work. Try again.' };
      const answer = await failStepUpFlow(deps.flows, loaded.challenge._id, { userId: user._id });
      if (answer.ended || !answer.value.ok) return { kind: 'page', status: 400, error: GONE };
      await recordStepUpState(deps.store, loaded.challenge._id, 'failed', user._id, null);
      deps.log.info('step-up factor failed', { client: loaded.client._id, user: user._id });
      return { kind: 'redirect', url: deniedRedirect(loaded.challenge, 'the second factor could not be verified') };
    }
    return issue(loaded, user, factor.method);
  }

  /** Consumes the challenge and issues the code (the factor, or the sudo window, was checked). */
  async function issue(loaded: Loaded, user: UserDoc, method: StepUpMethod): Promise<Outcome> {
    // The code goes to the browser only; the workflow and the projection get its hash.
    const code = newSecret();
    const confirmed = await confirmStepUpFlow(deps.flows, loaded.challenge._id, { userId: user._id, method, codeHash: hashSecret(code) });
    if (confirmed.ended) return { kind: 'page', status: 400, error: GONE };
    const result = confirmed.value;
    if (!result.ok) return result.state === 'error' ? { kind: 'redirect', url: deniedRedirect(loaded.challenge, 'an error occurred') } : { kind: 'page', status: 400, error: GONE };
    deps.log.info('step-up challenge confirmed', { client: loaded.client._id, user: user._id, method });
    return { kind: 'redirect', url: appRedirect(loaded.challenge, { code }), confirmed: true };
  }

  /**
   * Sudo mode (issue 6 item 5): sudo_mode_ttl_minutes, read once per request
   * (0: no sudo path and no opt-in offered, even for a window still open).
   */
  const sudoMinutes = async (): Promise<number> => (await getSiteSettings(deps.store)).sudo_mode_ttl_minutes;
  const sudoKey = (session: SessionDoc, user: UserDoc, loaded: Loaded) => ({ userId: user._id, sid: session.sid, clientId: loaded.client._id });

  /**
   * The sudo path: the checkbox alone within an open window of (user, this
   * session's sid, the challenge's client). No captcha, no factor; method `sudo`.
   * A window that ended since the page loaded: the factor form again, nothing consumed.
   */
  async function authorizeSudo(loaded: Loaded, user: UserDoc, session: SessionDoc, ticked: boolean, minutes: number): Promise<Outcome> {
    if (!ticked) return { kind: 'page', status: 400, error: 'Tick the box to confirm the action first.' };
    if (!(minutes > 0) || !(await activeSudoWindow(deps.store, sudoKey(session, user, loaded)))) return { kind: 'page', status: 400, error: SUDO_ENDED };
    return issue(loaded, user, 'sudo');
  }

  /** After a confirmed factor: the opt-in opens the window (failure to open does not undo the confirmation). */
  async function maybeOpenSudo(outcome: Outcome, optIn: boolean, session: SessionDoc, user: UserDoc, loaded: Loaded): Promise<void> {
    if (!optIn || outcome.kind !== 'redirect' || !outcome.confirmed) return;
    try {
      const opened = await openSudoWindow(deps, sudoKey(session, user, loaded));
      if (opened) deps.log.info('sudo window opened', { client: loaded.client._id, user: user._id, window: opened.windowId });
    } catch (err) {
      deps.log.error('sudo window could not be opened', { client: loaded.client._id, user: user._id, error: (err as Error).message });
    }
  }

  /** The captcha's part of the form (null when the gate does not apply). */
  async function captchaFields(challenge: StepUpChallengeDoc) {
    const settings = await getSiteSettings(deps.store);
    return captchaRequired(settings, challenge) ? captchaFormFields(settings, `${STEP_UP_PATHS.info}?challenge_id=${challenge._id}`) : null;
  }

  async function confirmPage(res: Response, session: SessionDoc, loaded: Loaded, user: UserDoc, opts: { error?: string; status?: number; sudoMinutes?: number } = {}) {
    const { challenge, client } = loaded;
    // Sudo mode: within an open window the checkbox alone confirms; otherwise the factors, with the opt-in when enabled.
    const sudoMins = opts.sudoMinutes ?? (await sudoMinutes());
    if (sudoMins > 0 && (await activeSudoWindow(deps.store, sudoKey(session, user, loaded)))) return sudoConfirmPage(res, session, loaded, opts);
    const sudoOptIn =
      sudoMins > 0
        ? html`<label class="check"><input type="checkbox" name="sudo" value="yes" data-step-up-sudo> Don't ask again for ${String(sudoMins)} minutes</label>`
        : '';
    const passkeys = await hasPasskey(deps.store, user._id);
    const codes = Boolean(user.totp) || user.backupCodes.length > 0;
    const id = challenge._id;
    const captcha = await captchaFields(challenge);
    sendPage(res, {
      title: 'Confirm with two-step verification',
      status: opts.status,
      scripts: ['simplewebauthn-browser.js', 'webauthn.js', 'step-up.js', ...(captcha ? ['captcha.js'] : [])],
      body: html`<h1>Confirm an action</h1>
${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ''}
<p><strong>${client.name}</strong> ${client.isVerified ? html`<span class="badge" title="Keyflow verified this application">Verified</span>` : html`<span class="muted">(not verified by Keyflow)</span>`} asks you to confirm this action:</p>
<p class="action">${challenge.action}</p>
<form method="post" action="${STEP_UP_PATHS.authorize}" data-step-up>
${csrfField(session.csrf)}
<input type="hidden" name="challenge_id" value="${id}">
<label class="check"><input type="checkbox" name="confirm_action" value="yes" data-step-up-confirm> I confirm: ${challenge.action}</label>
${sudoOptIn}
${captcha ?? ''}
${
  codes
    ? html`<label for="code">Authentication code</label>
<input id="code" name="code" type="text" inputmode="text" autocomplete="one-time-code" maxlength="20">
<p class="muted">The 6-digit code from your authenticator app, or one of your backup codes. A wrong code cancels this request.</p>
<button type="submit" name="decision" value="confirm" disabled data-step-up-enable>Confirm</button>`
    : ''
}
</form>
${
  passkeys
    ? html`<p><button type="button" class="secondary" disabled data-step-up-enable data-webauthn="second-factor" data-csrf="${session.csrf}" data-options="${STEP_UP_PATHS.passkeyOptions}?challenge_id=${id}" data-verify="${STEP_UP_PATHS.passkey}?challenge_id=${id}" data-request="${id}">Use a passkey</button></p>`
    : ''
}
<p class="error" role="alert" data-webauthn-error hidden></p>
<form method="post" action="${STEP_UP_PATHS.authorize}" data-step-up-deny>
${csrfField(session.csrf)}
<input type="hidden" name="challenge_id" value="${id}">
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`,
    });
  }

  /** Within a sudo window: the checkbox and "Confirm", no factor inputs (the server checks the window again on submit). */
  function sudoConfirmPage(res: Response, session: SessionDoc, loaded: Loaded, opts: { error?: string; status?: number }) {
    const { challenge, client } = loaded;
    sendPage(res, {
      title: 'Confirm an action',
      status: opts.status,
      scripts: ['step-up.js'],
      body: html`<h1>Confirm an action</h1>
${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ''}
<p><strong>${client.name}</strong> ${client.isVerified ? html`<span class="badge" title="Keyflow verified this application">Verified</span>` : html`<span class="muted">(not verified by Keyflow)</span>`} asks you to confirm this action:</p>
<p class="action">${challenge.action}</p>
<form method="post" action="${STEP_UP_PATHS.authorize}" data-step-up data-step-up-sudo-path>
${csrfField(session.csrf)}
<input type="hidden" name="challenge_id" value="${challenge._id}">
<label class="check"><input type="checkbox" name="confirm_action" value="yes" data-step-up-confirm> I confirm: ${challenge.action}</label>
<p class="muted">You confirmed an action of ${client.name} with your second factor a short while ago and chose not to be asked again for now.</p>
<button type="submit" name="decision" value="sudo" disabled data-step-up-enable>Confirm</button>
</form>
<form method="post" action="${STEP_UP_PATHS.authorize}" data-step-up-deny>
${csrfField(session.csrf)}
<input type="hidden" name="challenge_id" value="${challenge._id}">
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`,
    });
  }

  function enrollPage(res: Response, loaded: Loaded, back: string) {
    sendPage(res, {
      title: 'Set up two-step verification',
      body: html`<h1>Set up two-step verification</h1>
<p><strong>${loaded.client.name}</strong> asked you to confirm an action with two-step verification, but your account has neither an authenticator app nor a passkey.</p>
<p>Add one at <a href="/account/security">Account security</a> (an authenticator app such as a TOTP app on your phone, or a passkey), then start the action again in ${loaded.client.name}.</p>
<p><a href="${back}">Return to ${loaded.client.name}</a></p>`,
    });
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
    if (!session?.userId) return res.redirect(303, loginUrl(loaded.challenge._id));
    const user = await findUserById(deps.store, session.userId);
    if (!user) return res.redirect(303, loginUrl(loaded.challenge._id));
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
    if (!session.userId) return res.redirect(303, loginUrl(loaded.challenge._id));
    const user = await findUserById(deps.store, session.userId);
    if (!user) return res.redirect(303, loginUrl(loaded.challenge._id));
    const again = (outcome: Extract<Outcome, { kind: 'page' }>) => () => confirmPage(res, session, loaded, user, { error: outcome.error, status: outcome.status });

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
    const outcome = await authorize(loaded, user, body.confirm_action === 'yes', async () => {
      if (code.trim() === '') return { ok: false, consume: false, error: 'Enter an authentication code or use a passkey.' };
      const limit = await takeAttempt(deps.store, codeLimitKey(user), CODE_LIMIT);
      if (!limit.allowed) return { ok: false, consume: false, status: TOO_MANY.status, error: TOO_MANY.error };
      const result = await verifySecondFactorCode(deps.store, deps.kek, user, code);
      return result.ok ? { ok: true, method: result.method } : { ok: false, consume: true };
    }, captchaAnswerFrom(body, req.ip));
    await maybeOpenSudo(outcome, minutes > 0 && body.sudo === 'yes', session, user, loaded);
    await render(res, outcome, outcome.kind === 'page' ? again(outcome) : async () => {});
  });
  router.all(STEP_UP_PATHS.authorize, (_req, res) => sendErrorPage(res, 405, 'Not allowed', 'Use the confirmation page.'));

  // Passkeys: JSON endpoints driven by /assets/webauthn.js, bound to the challenge by its id in the URL.
  async function passkeyContext(req: Request, res: Response): Promise<{ session: SessionDoc; loaded: Loaded; user: UserDoc } | null> {
    const session = req.kfSession;
    const fail = (status: number, description: string) => void res.status(status).set('Cache-Control', 'no-store').json({ error: 'invalid_request', error_description: description });
    if (!session || !hasValidCsrf(req, session)) return (fail(403, 'missing or wrong CSRF token'), null);
    const loaded = await load(ChallengeQuery.parse(req.query).challenge_id);
    if (!loaded) return (fail(400, GONE), null);
    const user = session.userId ? await findUserById(deps.store, session.userId) : null;
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
    const outcome = await authorize(ctx.loaded, ctx.user, query.confirm_action === 'yes', async () => {
      const passkey = await verifyPasskey(deps.store, rp, ctx.session, body.response, ctx.user._id);
      return passkey ? { ok: true, method: 'passkey' } : { ok: false, consume: true };
    }, captchaAnswerFrom(body.captcha, req.ip));
    // /assets/step-up.js adds sudo=yes while "Don't ask again" is ticked.
    await maybeOpenSudo(outcome, query.sudo === 'yes' && (await sudoMinutes()) > 0, ctx.session, ctx.user, ctx.loaded);
    if (outcome.kind === 'redirect') return res.set('Cache-Control', 'no-store').json({ redirect: outcome.url });
    res.status(outcome.status).set('Cache-Control', 'no-store').json({ error: 'invalid_request', error_description: outcome.error });
  });

  return router;
}
