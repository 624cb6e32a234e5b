// The captcha gate's pure parts: when step-up asks for a captcha, and the
// self-hosted proof of work (leading zero bits of SHA-256(challenge:nonce)).
import { CAPTCHA_VERIFY_URLS, captchaRequired, checkPow, isThirdPartyProvider, leadingZeroBits, powHash, solvePow } from '../../../lib/model/captcha.js';

describe('captchaRequired', () => {
  it('applies when the site requires it or the challenge asked for it, never with provider none', () => {
    const site = (require_captcha_for_2fa: boolean, captcha_provider: 'none' | 'pow' | 'hcaptcha') => ({ require_captcha_for_2fa, captcha_provider });
    expect(captchaRequired(site(true, 'pow'), { requireCaptcha: false })).toBe(true);
    expect(captchaRequired(site(false, 'hcaptcha'), { requireCaptcha: true })).toBe(true);
    expect(captchaRequired(site(false, 'pow'), { requireCaptcha: false })).toBe(false);
    expect(captchaRequired(site(true, 'none'), { requireCaptcha: true })).toBe(false);
  });
});

describe('providers', () => {
  it('verify third-party tokens at each provider’s own URL; none and pow are not third parties', () => {
    expect(isThirdPartyProvider('none')).toBe(false);
    expect(isThirdPartyProvider('pow')).toBe(false);
    for (const p of ['hcaptcha', 'turnstile', 'recaptcha'] as const) {
      expect(isThirdPartyProvider(p)).toBe(true);
      expect(new URL(CAPTCHA_VERIFY_URLS[p]).protocol).toBe('https:');
    }
  });
});

describe('leadingZeroBits', () => {
  it.each<[number[], number]>([
    [[], 0],
    [[0x80], 0],
    [[0x01], 7],
    [[0x00, 0xff], 8],
    [[0x00, 0x00, 0x10], 19],
    [[0x00, 0x00], 16],
    [[0x7f, 0x00], 1],
  ])('%j has %i', (bytes, bits) => {
    expect(leadingZeroBits(Uint8Array.from(bytes))).toBe(bits);
  });
});

describe('proof of work', () => {
  it('checks SHA-256 of challenge:nonce against the difficulty', () => {
    expect(powHash('abc', '42').toString('hex')).toBe('77fed3f4d816b7f45026b803d1110fd9e8495ff5884d55c08c605d1b68057163');
    const nonce = solvePow('challenge-1', 12);
    expect(checkPow('challenge-1', nonce, 12)).toBe(true);
    expect(leadingZeroBits(powHash('challenge-1', nonce))).toBeGreaterThanOrEqual(12);
    // The answer is bound to its challenge.
    expect(checkPow('challenge-2', nonce, 12)).toBe(false);
    expect(checkPow('challenge-1', nonce, 0)).toBe(true);
    expect(checkPow('challenge-1', nonce, 257)).toBe(false);
  });

  it('finds the first nonce that meets the difficulty', () => {
    const nonce = Number(solvePow('challenge-1', 8));
    for (let n = 0; n < nonce; n++) expect(checkPow('challenge-1', String(n), 8)).toBe(false);
  });
});
