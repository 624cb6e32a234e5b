// The captcha gate in a page: its part of a form, and the answer read from a
// form or JSON body. What the gate needs and the check of the answer are
// lib/verification/captcha.ts.
import { z } from 'zod';
import type { SiteSettings } from '../../lib/model/site-settings.js';
import type { CaptchaAnswer } from '../../lib/verification/captcha.js';
import { html, type SafeHtml } from '../html/html.js';
import { fieldsOf } from '../http/input.js';

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

/** A captcha field: one string up to `max` characters, or absent (anything else reads as absent, and fails the check). */
const captchaField = (max: number) => z.string().max(max).optional().catch(undefined);
const CaptchaFields = fieldsOf({ captcha_token: captchaField(4096), pow_challenge: captchaField(100), pow_nonce: captchaField(100) });

/** Reads the answer fields (`captcha_token`, `pow_challenge`, `pow_nonce`) from a form or JSON body. */
export function captchaAnswerFrom(body: unknown, remoteIp?: string): CaptchaAnswer {
  const b = CaptchaFields.parse(body);
  return { captchaToken: b.captcha_token, powChallenge: b.pow_challenge, powNonce: b.pow_nonce, remoteIp };
}
