// The captcha gate, server side, for step-up 2FA and the sign-in form: the
// values a page needs (with a fresh proof-of-work challenge for provider
// `pow`), the form fields, and the check of the answer the page sends back.
// - Third-party providers (hCaptcha, Turnstile, reCAPTCHA): the browser field
//   `captcha_token` is POSTed as a form (`secret`, `response`, `remoteip`) to
//   the provider's verify URL (or the site setting `captcha_verify_url`)
//   through outboundRequest; success is JSON `success: true`.
// - Proof of work: `pow_challenge` is random, stored in `replay_guards` as
//   `pow-issued:<purpose>:<pow_challenge>` (bound to what it guards: a step-up
//   challenge id, or `sign-in`; with an expiry) and claimed once (`claimOnce`,
//   key `pow-used:<pow_challenge>`) when checked, right or wrong: a
//   pow_challenge is never accepted twice, nor for another purpose.
// Tokens, challenges and nonces are never logged.
import { randomBytes } from 'node:crypto';
import { captchaRequired, CAPTCHA_VERIFY_URLS, checkPow, isThirdPartyProvider } from '../../lib/domain/captcha.js';
import type { SiteSettings } from '../../lib/domain/site-settings.js';
import type { Kek } from '../../lib/security/kek.js';
import { outboundRequest, type OutboundPolicy } from '../../lib/outbound/http-client.js';
import type { Store } from '../../lib/store/db.js';
import { siteSecret } from '../../lib/store/settings.js';
import { claimOnce, rememberIssued, wasIssued } from '../../lib/store/single-use.js';
import { html, type SafeHtml } from '../html/html.js';
import { z } from 'zod';
import { fieldsOf } from '../http/input.js';

export { captchaRequired } from '../../lib/domain/captcha.js';

/** How long a proof-of-work challenge may be answered. */
export const POW_CHALLENGE_TTL_MS = 10 * 60_000;

export interface CaptchaAnswer {
  captchaToken?: string;
  powChallenge?: string;
  powNonce?: string;
  remoteIp?: string;
}

export type CaptchaResult = { ok: true } | { ok: false; error: string };

/** The purpose of the sign-in form's proof-of-work challenges (step-up ones use their challenge id). */
export const SIGN_IN_CAPTCHA = 'sign-in';

const issuedKey = (purpose: string, pow: string) => `pow-issued:${purpose}:${pow}`;

/** A fresh proof-of-work challenge, valid only for `purpose`. */
export async function issuePowChallenge(store: Store, purpose: string): Promise<string> {
  const pow = randomBytes(16).toString('base64url');
  await rememberIssued(store, issuedKey(purpose, pow), POW_CHALLENGE_TTL_MS);
  return pow;
}

/**
 * The captcha's part of a form. PoW: /assets/captcha.js fetches a challenge
 * from `infoUrl`, solves it in a Web Worker (/assets/pow-worker.js) and fills
 * pow_challenge + pow_nonce. Third-party providers: their widget scripts are
 * not loaded under our CSP (no external assets); the page carries the token
 * in a "Captcha answer" field.
 */
export function captchaFormFields(settings: SiteSettings, infoUrl: string): SafeHtml {
  if (settings.captcha_provider === 'pow') {
    return html`<div data-pow data-info="${infoUrl}">
<input type="hidden" name="pow_challenge" value="" data-captcha-field>
<input type="hidden" name="pow_nonce" value="" data-captcha-field>
<p class="muted" role="status" data-pow-status>Checking your browser…</p>
</div>`;
  }
  return html`<label for="captcha_token">Captcha answer</label>
<input id="captcha_token" name="captcha_token" type="text" autocomplete="off" data-captcha-field data-provider="${settings.captcha_provider}" data-sitekey="${settings.captcha_site_key}">`;
}

/** The captcha part of /api/oauth/2fa/info. */
export async function captchaInfo(store: Store, settings: SiteSettings, challenge: { _id: string; requireCaptcha: boolean }): Promise<Record<string, unknown>> {
  const required = captchaRequired(settings, challenge);
  const info: Record<string, unknown> = {
    captcha_required: required,
    captcha_provider: settings.captcha_provider,
    captcha_site_key: settings.captcha_site_key === '' ? null : settings.captcha_site_key,
  };
  if (required && settings.captcha_provider === 'pow') {
    info.pow_challenge = await issuePowChallenge(store, challenge._id);
    info.pow_difficulty = settings.pow_difficulty;
  }
  return info;
}

/** True when the answer carries anything at all (a form that showed the captcha). */
export const hasCaptchaAnswer = (a: CaptchaAnswer) => !!(a.captchaToken || a.powChallenge || a.powNonce);

/** Reads the answer fields (`captcha_token`, `pow_challenge`, `pow_nonce`) from a form or JSON body. */
/** A captcha field: one string up to `max` characters, or absent (anything else reads as absent, and fails the check). */
const captchaField = (max: number) => z.string().max(max).optional().catch(undefined);
const CaptchaFields = fieldsOf({ captcha_token: captchaField(4096), pow_challenge: captchaField(100), pow_nonce: captchaField(100) });

export function captchaAnswerFrom(body: unknown, remoteIp?: string): CaptchaAnswer {
  const b = CaptchaFields.parse(body);
  return { captchaToken: b.captcha_token, powChallenge: b.pow_challenge, powNonce: b.pow_nonce, remoteIp };
}

/**
 * Checks the captcha answer where the gate applies; `purpose` is what the
 * proof of work was issued for. Never throws for a provider failure: an
 * unreachable provider is a failed captcha.
 */
export async function verifyCaptcha(
  deps: { store: Store; kek: Kek; outbound: OutboundPolicy },
  settings: SiteSettings,
  purpose: string,
  answer: CaptchaAnswer,
): Promise<CaptchaResult> {
  const provider = settings.captcha_provider;
  if (provider === 'none') return { ok: true };
  if (provider === 'pow') {
    const { powChallenge: pow, powNonce: nonce } = answer;
    if (!pow || !nonce) return { ok: false, error: 'Wait until the browser check has finished, then try again.' };
    if (!(await wasIssued(deps.store, issuedKey(purpose, pow)))) return { ok: false, error: 'The browser check expired. Reload the page and try again.' };
    // Single use, right or wrong: a second answer to the same pow_challenge is refused.
    if (!(await claimOnce(deps.store, `pow-used:${pow}`, POW_CHALLENGE_TTL_MS + 60_000)))
      return { ok: false, error: 'The browser check was already used. Reload the page and try again.' };
    return checkPow(pow, nonce, settings.pow_difficulty) ? { ok: true } : { ok: false, error: 'The browser check failed. Reload the page and try again.' };
  }
  if (!isThirdPartyProvider(provider)) return { ok: false, error: 'The captcha is not configured.' };
  if (!answer.captchaToken) return { ok: false, error: 'Answer the captcha first.' };
  const url = settings.captcha_verify_url || CAPTCHA_VERIFY_URLS[provider];
  const form = new URLSearchParams({ secret: await siteSecret(deps.store, deps.kek, 'captcha_secret_key'), response: answer.captchaToken });
  if (answer.remoteIp) form.set('remoteip', answer.remoteIp);
  try {
    const res = await outboundRequest(deps.outbound, 'captcha', url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
    });
    const data = res.status === 200 ? (JSON.parse(res.body.toString('utf8')) as { success?: unknown }) : null;
    if (data?.success === true) return { ok: true };
  } catch {
    // Unreachable, refused, too slow or not JSON: the captcha is not passed.
  }
  return { ok: false, error: 'The captcha could not be verified. Try again.' };
}
