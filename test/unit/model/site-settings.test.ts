// Site settings: each setting's type, range and default, as an operator or
// admin sets it from text or JSON, and how secret ones are shown.
import {
  defaultSiteSettings,
  isSiteSettingKey,
  parseSiteSetting,
  redactSiteSettings,
  SECRET_IS_SET,
  siteSettingsFrom,
} from '../../../lib/model/site-settings.js';

describe('defaults', () => {
  it('leave sudo mode and the captcha off, and sign-up by invitation', () => {
    expect(defaultSiteSettings()).toEqual({
      sudo_mode_ttl_minutes: 0,
      require_captcha_for_2fa: false,
      captcha_provider: 'none',
      captcha_site_key: '',
      captcha_secret_key: '',
      captcha_verify_url: '',
      pow_difficulty: 18,
      registration: 'invite',
    });
  });

  it('know their own keys only (not those every object inherits)', () => {
    expect(isSiteSettingKey('registration')).toBe(true);
    for (const key of ['toString', '__proto__', 'constructor', 'Registration']) expect([key, isSiteSettingKey(key)]).toEqual([key, false]);
  });
});

describe('parseSiteSetting', () => {
  it('reads numbers and booleans from text as the CLI gives them, and from JSON', () => {
    expect(parseSiteSetting('sudo_mode_ttl_minutes', '15')).toBe(15);
    expect(parseSiteSetting('sudo_mode_ttl_minutes', 1440)).toBe(1440);
    expect(parseSiteSetting('require_captcha_for_2fa', 'true')).toBe(true);
    expect(parseSiteSetting('require_captcha_for_2fa', false)).toBe(false);
    expect(parseSiteSetting('captcha_verify_url', '')).toBe('');
    expect(parseSiteSetting('captcha_verify_url', 'http://127.0.0.1:9000/verify')).toBe('http://127.0.0.1:9000/verify');
    expect(parseSiteSetting('pow_difficulty', '8')).toBe(8);
  });

  it.each<[Parameters<typeof parseSiteSetting>[0], unknown, string]>([
    ['sudo_mode_ttl_minutes', '-1', 'sudo_mode_ttl_minutes: must be at least 0'],
    ['sudo_mode_ttl_minutes', '1441', 'sudo_mode_ttl_minutes: must be at most 1440'],
    ['sudo_mode_ttl_minutes', '1.5', 'sudo_mode_ttl_minutes: must be a whole number'],
    ['sudo_mode_ttl_minutes', 'ten', 'sudo_mode_ttl_minutes: must be a number'],
    ['require_captcha_for_2fa', 'yes', 'require_captcha_for_2fa: must be true or false'],
    ['require_captcha_for_2fa', 1, 'require_captcha_for_2fa: must be true or false'],
    ['captcha_provider', 'friendlycaptcha', 'captcha_provider: must be one of none, hcaptcha, turnstile, recaptcha, pow'],
    ['captcha_verify_url', 'ftp://verify.example', 'captcha_verify_url: Invalid URL'],
    ['pow_difficulty', '7', 'pow_difficulty: must be at least 8'],
    ['pow_difficulty', 33, 'pow_difficulty: must be at most 32'],
    ['registration', 'anyone', 'registration: must be one of open, invite, closed'],
    ['captcha_site_key', 'k'.repeat(501), 'captcha_site_key: Too big: expected string to have <=500 characters'],
  ])('refuses %s = %j', (key, raw, message) => {
    expect(() => parseSiteSetting(key, raw)).toThrow(message);
  });
});

describe('secret settings', () => {
  it('are masked for operators when set, and read as unset when empty', () => {
    const settings = { ...defaultSiteSettings(), captcha_secret_key: 'shh', captcha_site_key: 'public' };
    expect(redactSiteSettings(settings)).toMatchObject({ captcha_secret_key: '********', captcha_site_key: 'public' });
    expect(redactSiteSettings(defaultSiteSettings()).captcha_secret_key).toBe('');
    expect(siteSettingsFrom({ captcha_secret_key: '' }).captcha_secret_key).toBe('');
    expect(siteSettingsFrom({ captcha_secret_key: { v: 1 } as never }).captcha_secret_key).toBe(SECRET_IS_SET);
  });

  it('leave the other stored values as they are, defaults filling in the rest', () => {
    expect(siteSettingsFrom({ sudo_mode_ttl_minutes: 5, registration: 'open' })).toEqual({
      ...defaultSiteSettings(),
      sudo_mode_ttl_minutes: 5,
      registration: 'open',
    });
  });
});
