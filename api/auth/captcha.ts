// The captcha gate of step-up 2FA (issue 6 item 4), server side: the values
// /api/oauth/2fa/info hands the page (with a fresh proof-of-work challenge for
// provider `pow`), and the check of the answer the page sends with the factor.
// - Third-party providers (hCaptcha, Turnstile, reCAPTCHA): the browser field
//   `captcha_token` is POSTed as a form (`secret`, `response`, `remoteip`) to
//   the provider's verify URL (or the site setting `captcha_verify_url`)
//   through outboundRequest; success is JSON `success: true`.
// - Proof of work: `pow_challenge` is random, stored in `replay_guards` as
//   `pow-issued:<challenge id>:<pow_challenge>` (bound to the step-up challenge,
//   with an expiry) and claimed once (`claimOnce`, key `pow-used:<pow_challenge>`)
//   when checked, right or wrong: a pow_challenge is never accepted twice.
// Tokens, challenges and nonces are never logged.
import { randomBytes } from 'node:crypto';
import { captchaRequired, CAPTCHA_VERIFY_URLS, checkPow, isThirdPartyProvider } from '../../domain/captcha.js';
import type { SiteSettings } from '../../domain/site-settings.js';
import { outboundRequest, type OutboundPolicy } from '../../outbound/http-client.js';
import type { Store } from '../../store/db.js';
import { claimOnce } from '../../store/single-use.js';

export { captchaRequired } from '../../domain/captcha.js';

/** How long a proof-of-work challenge may be answered. */
export const POW_CHALLENGE_TTL_MS = 10 * 60_000;

export interface CaptchaAnswer {
  captchaToken?: string;
  powChallenge?: string;
  powNonce?: string;
  remoteIp?: string;
}

export type CaptchaResult = { ok: true } | { ok: false; error: string };

const issuedKey = (challengeId: string, pow: string) => `pow-issued:${challengeId}:${pow}`;

/** A fresh proof-of-work challenge for one step-up challenge. */
export async function issuePowChallenge(store: Store, challengeId: string): Promise<string> {
  const pow = randomBytes(16).toString('base64url');
  await store.expiring('replay_guards').insertOne({ _id: issuedKey(challengeId, pow), expiresAt: new Date(Date.now() + POW_CHALLENGE_TTL_MS) });
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

/** Reads the answer fields (`captcha_token`, `pow_challenge`, `pow_nonce`) from a form or JSON body. */
export function captchaAnswerFrom(body: unknown, remoteIp?: string): CaptchaAnswer {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const str = (v: unknown, max: number) => (typeof v === 'string' && v.length <= max ? v : undefined);
  return { captchaToken: str(b.captcha_token, 4096), powChallenge: str(b.pow_challenge, 100), powNonce: str(b.pow_nonce, 100), remoteIp };
}

/**
 * Checks the captcha answer for a challenge where `captchaRequired` is true.
 * Never throws for a provider failure: an unreachable provider is a failed captcha.
 */
export async function verifyCaptcha(deps: { store: Store; outbound: OutboundPolicy }, settings: SiteSettings, challengeId: string, answer: CaptchaAnswer): Promise<CaptchaResult> {
  const provider = settings.captcha_provider;
  if (provider === 'none') return { ok: true };
  if (provider === 'pow') {
    const { powChallenge: pow, powNonce: nonce } = answer;
    if (!pow || !nonce) return { ok: false, error: 'Wait until the browser check has finished, then try again.' };
    const issued = await deps.store.expiring('replay_guards').findOne({ _id: issuedKey(challengeId, pow) });
    if (!issued || issued.expiresAt <= new Date()) return { ok: false, error: 'The browser check expired. Reload the page and try again.' };
    // Single use, right or wrong: a second answer to the same pow_challenge is refused.
    if (!(await claimOnce(deps.store, `pow-used:${pow}`, POW_CHALLENGE_TTL_MS + 60_000))) return { ok: false, error: 'The browser check was already used. Reload the page and try again.' };
    return checkPow(pow, nonce, settings.pow_difficulty) ? { ok: true } : { ok: false, error: 'The browser check failed. Reload the page and try again.' };
  }
  if (!isThirdPartyProvider(provider)) return { ok: false, error: 'The captcha is not configured.' };
  if (!answer.captchaToken) return { ok: false, error: 'Answer the captcha first.' };
  const url = settings.captcha_verify_url || CAPTCHA_VERIFY_URLS[provider];
  const form = new URLSearchParams({ secret: settings.captcha_secret_key, response: answer.captchaToken });
  if (answer.remoteIp) form.set('remoteip', answer.remoteIp);
  try {
    const res = await outboundRequest(deps.outbound, 'captcha', url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: form.toString() });
    const data = res.status === 200 ? (JSON.parse(res.body.toString('utf8')) as { success?: unknown }) : null;
    if (data?.success === true) return { ok: true };
  } catch {
    // Unreachable, refused, too slow or not JSON: the captcha is not passed.
  }
  return { ok: false, error: 'The captcha could not be verified. Try again.' };
}
