// The captcha gate (step-up 2FA and the sign-in form), pure parts: when the
// step-up gate applies, the providers' default verify URLs, and the
// self-hosted proof of work (leading zero bits of
// SHA-256(pow_challenge + ':' + pow_nonce)). When the sign-in form asks for it
// depends on failure counts: api/sign-in-checks/sign-in-limits.ts.
import { createHash } from 'node:crypto';
import type { CAPTCHA_PROVIDERS, SiteSettings } from './site-settings.js';

export type CaptchaProvider = (typeof CAPTCHA_PROVIDERS)[number];
export type ThirdPartyProvider = Exclude<CaptchaProvider, 'none' | 'pow'>;

/** Where each third-party provider verifies a token server-side (the site setting `captcha_verify_url` overrides it). */
export const CAPTCHA_VERIFY_URLS: Record<ThirdPartyProvider, string> = {
  hcaptcha: 'https://api.hcaptcha.com/siteverify',
  turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
  recaptcha: 'https://www.google.com/recaptcha/api/siteverify',
};

export const isThirdPartyProvider = (p: CaptchaProvider): p is ThirdPartyProvider => p !== 'none' && p !== 'pow';

/**
 * The gate applies when the site requires it or the challenge asked for it (an
 * app cannot switch the site gate off); with provider `none` it has no effect.
 * The sudo path does not call this (the gate is skipped there: the user proved themselves within the sudo window).
 */
export function captchaRequired(settings: Pick<SiteSettings, 'require_captcha_for_2fa' | 'captcha_provider'>, challenge: { requireCaptcha: boolean }): boolean {
  if (settings.captcha_provider === 'none') return false;
  return settings.require_captcha_for_2fa || challenge.requireCaptcha;
}

/** Number of leading zero bits of `buf`. */
export function leadingZeroBits(buf: Uint8Array): number {
  let bits = 0;
  for (const byte of buf) {
    if (byte === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(byte) - 24;
  }
  return bits;
}

export function powHash(challenge: string, nonce: string): Buffer {
  return createHash('sha256').update(`${challenge}:${nonce}`).digest();
}

/** True when SHA-256(challenge + ':' + nonce) starts with at least `difficulty` zero bits. */
export function checkPow(challenge: string, nonce: string, difficulty: number): boolean {
  return leadingZeroBits(powHash(challenge, nonce)) >= difficulty;
}

/** Finds a nonce (decimal string) for `challenge` at `difficulty` (tests; the browser does it in a Web Worker). */
export function solvePow(challenge: string, difficulty: number): string {
  for (let n = 0; ; n++) if (checkPow(challenge, String(n), difficulty)) return String(n);
}
