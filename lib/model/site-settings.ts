// Site settings (instance configuration an operator or admin changes at run
// time, stored in MongoDB), with their types and defaults in one place.
import { z } from 'zod';
import type { Sealed } from '../security/kek.js';

export const CAPTCHA_PROVIDERS = ['none', 'hcaptcha', 'turnstile', 'recaptcha', 'pow'] as const;
export const REGISTRATION_MODES = ['open', 'invite', 'closed'] as const;

const bool = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')], { error: 'must be true or false' });
const int = (min: number, max: number) =>
  z.coerce.number({ error: 'must be a number' }).int('must be a whole number').min(min, `must be at least ${min}`).max(max, `must be at most ${max}`);

export const SITE_SETTINGS = {
  /** Length of the step-up sudo window; 0 disables sudo mode. */
  sudo_mode_ttl_minutes: { schema: int(0, 24 * 60), default: 0, secret: false },
  /** Site-wide captcha gate for step-up 2FA confirmation. */
  require_captcha_for_2fa: { schema: bool, default: false, secret: false },
  captcha_provider: { schema: z.enum(CAPTCHA_PROVIDERS, { error: `must be one of ${CAPTCHA_PROVIDERS.join(', ')}` }), default: 'none', secret: false },
  captcha_site_key: { schema: z.string().max(500), default: '', secret: false },
  captcha_secret_key: { schema: z.string().max(500), default: '', secret: true },
  /** Override of the provider's verify URL (tests point it at a local server). */
  captcha_verify_url: { schema: z.union([z.literal(''), z.url({ protocol: /^https?$/ })]), default: '', secret: false },
  /** Leading zero bits a proof-of-work answer needs. */
  pow_difficulty: { schema: int(8, 32), default: 18, secret: false },
  /** Who may create an account at /signup: anyone, holders of an invitation, or nobody. */
  registration: {
    schema: z.enum(REGISTRATION_MODES, { error: `must be one of ${REGISTRATION_MODES.join(', ')}` }),
    default: 'invite',
    secret: false,
  },
} as const;

export type SiteSettingKey = keyof typeof SITE_SETTINGS;
export type SiteSettings = { [K in SiteSettingKey]: z.output<(typeof SITE_SETTINGS)[K]['schema']> };

export function isSiteSettingKey(key: string): key is SiteSettingKey {
  return Object.hasOwn(SITE_SETTINGS, key);
}

export function defaultSiteSettings(): SiteSettings {
  return Object.fromEntries(Object.entries(SITE_SETTINGS).map(([k, v]) => [k, v.default])) as SiteSettings;
}

/** Parses one setting from its text or JSON form; throws with a readable message. */
export function parseSiteSetting<K extends SiteSettingKey>(key: K, raw: unknown): SiteSettings[K] {
  const result = SITE_SETTINGS[key].schema.safeParse(raw);
  if (!result.success) throw new Error(`${key}: ${result.error.issues[0]?.message ?? 'invalid value'}`);
  return result.data as SiteSettings[K];
}

/** Settings as shown to operators: secret values masked. */
export function redactSiteSettings(settings: SiteSettings): Record<string, unknown> {
  return Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, SITE_SETTINGS[k as SiteSettingKey].secret && v ? '********' : v]));
}

/** A stored value: a secret setting holds a Sealed value (or, stored before sealing, a string). */
export type StoredSiteValue<K extends SiteSettingKey = SiteSettingKey> = SiteSettings[K] | Sealed;
export type StoredSiteValues = { [K in SiteSettingKey]?: StoredSiteValue<K> };

/** The one settings document. Secret settings are sealed with the KEK, bound to their name. */
export interface SettingsDoc {
  _id: 'site';
  values: StoredSiteValues;
  updatedAt: Date;
}

/** What a set secret setting reads as to anyone but the code that needs its clear value. */
export const SECRET_IS_SET = '********';

export const isSecretSetting = (key: SiteSettingKey): boolean => SITE_SETTINGS[key].secret;

/** Every setting from the stored values, defaults filled in; a secret one as SECRET_IS_SET when set, '' when not. */
export function siteSettingsFrom(values: StoredSiteValues): SiteSettings {
  const settings: Record<string, unknown> = { ...defaultSiteSettings() };
  for (const [key, value] of Object.entries(values)) {
    settings[key] = isSecretSetting(key as SiteSettingKey) ? (value ? SECRET_IS_SET : '') : value;
  }
  return settings as SiteSettings;
}
