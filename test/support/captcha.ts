// A third-party captcha provider's verify endpoint on loopback (what hCaptcha,
// Turnstile and reCAPTCHA answer), and the site's captcha settings set all at
// once, for tests of the step-up captcha gate.
import http from 'node:http';
import type { SiteSettings } from '../../lib/model/site-settings.js';
import type { Kek } from '../../lib/security/kek.js';
import type { Store } from '../../lib/store/db.js';
import { setSiteSetting } from '../../lib/store/settings.js';
import { listenLocally } from './local-server.js';

export interface FakeCaptchaProvider {
  /** Its verify URL (captcha_verify_url). */
  url: string;
  /** The forms it received, in order. */
  calls: URLSearchParams[];
  close(): Promise<void>;
}

/** Passes a POST with `secret` and the answer `goodToken`; fails anything else. */
export async function startFakeCaptchaProvider(secret: string, goodToken: string): Promise<FakeCaptchaProvider> {
  const calls: URLSearchParams[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const form = new URLSearchParams(body);
      calls.push(form);
      const ok = req.method === 'POST' && form.get('secret') === secret && form.get('response') === goodToken;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(ok ? { success: true } : { success: false, 'error-codes': ['invalid-input-response'] }));
    });
  });
  const local = await listenLocally(server);
  return { url: `${local.url}/siteverify`, calls, close: local.close };
}

/** The captcha settings with the gate off and no provider, as a test starts from. */
export const CAPTCHA_OFF: Partial<SiteSettings> = {
  require_captcha_for_2fa: false,
  captcha_provider: 'none',
  captcha_site_key: '',
  captcha_secret_key: '',
  captcha_verify_url: '',
  pow_difficulty: 8,
};

/** Sets every setting of CAPTCHA_OFF, with `values` instead where given. */
export async function setCaptchaSettings(deps: { store: Store; kek: Kek }, values: Partial<SiteSettings> = {}): Promise<void> {
  for (const [k, v] of Object.entries({ ...CAPTCHA_OFF, ...values })) await setSiteSetting(deps.store, k as keyof SiteSettings, v as never, deps.kek);
}
