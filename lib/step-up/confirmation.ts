// Confirming a step-up challenge: denying it, checking the captcha gate and
// a factor before the code is issued, the sudo path (the checkbox alone within
// an open window) and the sudo opt-in after a confirmed factor. Every path
// that confirms goes through `authorize()`, so the captcha gate and the code
// attempt limit cannot be skipped. The page (api/pages/step-up.ts) parses and
// renders; this module decides, on plain inputs (the challenge id, the user,
// the session, the ticked box, a factor's proof, the captcha answer).
import type { AuditTrail } from '../audit/audit-trail.js';
import { captchaRequired } from '../model/captcha.js';
import { isChallengeId, type StepUpChallengeDoc, type StepUpMethod } from '../model/step-up-challenge.js';
import type { FlowClient } from '../flows/flow-client.js';
import { confirmStepUpFlow, denyStepUpFlow, failStepUpFlow } from '../flows/step-up-challenge.js';
import type { Kek } from '../security/kek.js';
import { hashSecret, newSecret } from '../security/secrets.js';
import type { OutboundPolicy } from '../runtime/http-client.js';
import type { Logger } from '../runtime/log.js';
import { currentRequest } from '../runtime/request-context.js';
import type { ClientLookup } from '../store/clients.js';
import type { ClientDoc } from '../model/clients.js';
import type { Store } from '../store/db.js';
import { takeAttempt } from '../store/rate-limits.js';
import type { SessionDoc } from '../model/sessions.js';
import { findStepUpChallenge, recordStepUpState } from '../store/step-up.js';
import type { UserDoc } from '../model/users.js';
import { getSiteSettings } from '../store/settings.js';
import { verifyCaptcha, type CaptchaAnswer } from '../verification/captcha.js';
import { activeSudoWindow, openSudoWindow } from './sudo-windows.js';

/** `kek` and `outbound`: the captcha check reads the provider's secret and calls its verify URL; `audit`: sudo.opened. */
export interface StepUpConfirmationDeps {
  store: Store;
  audit: Pick<AuditTrail, 'record'>;
  flows: FlowClient;
  log: Logger;
  findClient: ClientLookup;
  outbound: OutboundPolicy;
  kek: Kek;
}

/**
 * Code attempts (TOTP or backup code, and failed captchas) per user (8 per
 * 5 minutes), halved after each window that ran out: someone
 * guessing a 6-digit code keeps retrying. A passkey assertion does not count:
 * it signs a challenge taken once from the session, so there is nothing to
 * guess, and the one factor that cannot be guessed stays usable after codes ran out.
 */
export const CODE_LIMIT = { max: 8, windowMs: 5 * 60_000, backoff: true };
export const codeLimitKey = (user: UserDoc) => `2fa-totp:${user._id}`;
export const GONE = 'This confirmation request has expired or was already answered. Go back to the application and start again.';

export interface Loaded {
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
const deniedRedirect = (challenge: StepUpChallengeDoc, description: string) =>
  appRedirect(challenge, { error: 'access_denied', error_description: description });

/** The request answering the challenge: the workflow's activity records the outcome in the audit trail with it. */
const answeringRequest = () => {
  const request = currentRequest();
  return request ? { request } : {};
};

/** What an answer leads to: the app (redirect) or a page of ours (not consumed, or gone). */
export type Outcome = { kind: 'redirect'; url: string; confirmed?: boolean } | { kind: 'page'; status: number; error: string };

export const TOO_MANY = { kind: 'page', status: 429, error: 'Too many attempts. Wait a few minutes and try again.' } as const satisfies Outcome;

/** The sudo window's error when it ended between page load and submit: the page shows the factor form again, nothing consumed. */
const SUDO_ENDED = 'Your "don\'t ask again" period has ended. Confirm with your second factor.';

/** A factor proof, checked only after the checks before it passed (so a bad request never consumes a factor). */
export type Proof = () => Promise<{ ok: true; method: StepUpMethod } | { ok: false; status?: number; error?: string; consume: boolean }>;

/** The use case's steps, bound to its dependencies. */
export function stepUpConfirmation(deps: StepUpConfirmationDeps) {
  async function load(id: unknown): Promise<Loaded | null> {
    if (!isChallengeId(id)) return null;
    const challenge = await findStepUpChallenge(deps.store, id);
    const client = challenge && challenge.status === 'created' ? await deps.findClient(challenge.clientId) : null;
    return challenge && client ? { challenge, client } : null;
  }

  async function deny(loaded: Loaded, userId: string | null, reason: 'denied' | 'error', description: string): Promise<Outcome> {
    // An ended workflow (expired or answered) refuses like a consumed challenge.
    const answer = await denyStepUpFlow(deps.flows, loaded.challenge._id, { userId, reason, ...answeringRequest() });
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
    // The captcha gate, before any factor is checked: a failed
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
      const answer = await failStepUpFlow(deps.flows, loaded.challenge._id, { userId: user._id, ...answeringRequest() });
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
    const confirmed = await confirmStepUpFlow(deps.flows, loaded.challenge._id, {
      userId: user._id,
      method,
      codeHash: hashSecret(code),
      ...answeringRequest(),
    });
    if (confirmed.ended) return { kind: 'page', status: 400, error: GONE };
    const result = confirmed.value;
    if (!result.ok)
      return result.state === 'error'
        ? { kind: 'redirect', url: deniedRedirect(loaded.challenge, 'an error occurred') }
        : { kind: 'page', status: 400, error: GONE };
    deps.log.info('step-up challenge confirmed', { client: loaded.client._id, user: user._id, method });
    return { kind: 'redirect', url: appRedirect(loaded.challenge, { code }), confirmed: true };
  }

  /**
   * Sudo mode: sudo_mode_ttl_minutes, read once per request
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
      const opened = await openSudoWindow(deps, sudoKey(session, user, loaded), session.expiresAt);
      if (opened) deps.log.info('sudo window opened', { client: loaded.client._id, user: user._id, window: opened.windowId });
    } catch (err) {
      deps.log.error('sudo window could not be opened', { client: loaded.client._id, user: user._id, error: (err as Error).message });
    }
  }

  return { load, deny, authorize, authorizeSudo, maybeOpenSudo, sudoMinutes, sudoKey };
}
