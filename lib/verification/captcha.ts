// The captcha gate, server side, for step-up 2FA and the sign-in form: the
// values a page needs (with a fresh proof-of-work challenge for provider
// `pow`) and the check of the answer the page sends back. The form fields and
// reading the answer from a request are the api's (api/sign-in-checks/captcha.ts).
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
import { captchaRequired, CAPTCHA_VERIFY_URLS, checkPow, isThirdPartyProvider } from '../model/captcha.js';
import type { SiteSettings } from '../model/site-settings.js';
import type { Kek } from '../security/kek.js';
import { outboundRequest, type OutboundPolicy } from '../runtime/http-client.js';
import type { Store } from '../store/db.js';
import { siteSecret } from '../store/settings.js';
import { claimOnce, rememberIssued, wasIssued } from '../store/single-use.js';

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
