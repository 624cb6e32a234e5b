// Site settings: one document, defaults filled in from domain/site-settings.
// Secret settings (the captcha provider's secret key) are stored sealed with
// the KEK, bound to their name, like webhook secrets: a copy of the database
// alone does not give them away. Reading a secret's clear value needs the KEK
// (siteSecret); getSiteSettings shows only whether one is set.
import { defaultSiteSettings, SITE_SETTINGS, type SiteSettingKey, type SiteSettings } from '../domain/site-settings.js';
import { open, seal, type Kek, type Sealed } from '../security/kek.js';
import type { Store } from './db.js';

/** Stored values: a secret setting holds a Sealed value (or, stored before sealing, a string). */
type StoredValues = { [K in SiteSettingKey]?: SiteSettings[K] | Sealed };

export interface SettingsDoc {
  _id: 'site';
  values: StoredValues;
  updatedAt: Date;
}

/** What a set secret setting reads as outside siteSecret. */
export const SECRET_IS_SET = '********';

const isSecret = (key: SiteSettingKey) => SITE_SETTINGS[key].secret;
const isSealed = (v: unknown): v is Sealed => typeof v === 'object' && v !== null && (v as Sealed).alg === 'A256GCM';
const aadOf = (key: SiteSettingKey) => `site-setting:${key}`;

/** Every setting; a secret one as SECRET_IS_SET when set, '' when not. */
export async function getSiteSettings(store: Store): Promise<SiteSettings> {
  const doc = await store.settings.findOne({ _id: 'site' });
  const settings: Record<string, unknown> = { ...defaultSiteSettings() };
  for (const [key, value] of Object.entries(doc?.values ?? {})) {
    settings[key] = isSecret(key as SiteSettingKey) ? (value ? SECRET_IS_SET : '') : value;
  }
  return settings as SiteSettings;
}

/** The clear value of a secret setting ('' when unset). */
export async function siteSecret(store: Store, kek: Kek, key: SiteSettingKey): Promise<string> {
  const value = (await store.settings.findOne({ _id: 'site' }))?.values?.[key];
  if (isSealed(value)) return open(kek, value, aadOf(key), `the site setting ${key}`).toString('utf8');
  return typeof value === 'string' ? value : '';
}

/**
 * Sets one (already validated) setting and returns whether it changed. A
 * non-empty secret is sealed first, which needs the KEK.
 */
export async function setSiteSetting<K extends SiteSettingKey>(store: Store, key: K, value: SiteSettings[K], kek?: Kek): Promise<{ changed: boolean }> {
  let stored: SiteSettings[K] | Sealed = value;
  if (isSecret(key) && value !== '') {
    if (!kek) throw new Error(`the site setting ${key} is a secret: it is stored sealed, which needs the key-encryption key`);
    stored = seal(kek, Buffer.from(String(value), 'utf8'), aadOf(key));
  }
  const previous = isSecret(key) && kek ? await siteSecret(store, kek, key) : (await getSiteSettings(store))[key];
  await store.settings.updateOne({ _id: 'site' }, { $set: { [`values.${key}`]: stored, updatedAt: new Date() } }, { upsert: true });
  return { changed: previous !== value };
}

/** Seals secret settings stored in clear by an earlier version (at start; idempotent). */
export async function sealClearSecretSettings(store: Store, kek: Kek): Promise<string[]> {
  const values = (await store.settings.findOne({ _id: 'site' }))?.values ?? {};
  const sealed: string[] = [];
  for (const [key, value] of Object.entries(values)) {
    if (!isSecret(key as SiteSettingKey) || typeof value !== 'string' || value === '') continue;
    await setSiteSetting(store, key as SiteSettingKey, value as never, kek);
    sealed.push(key);
  }
  return sealed;
}
