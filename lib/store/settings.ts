// Site settings in MongoDB: one document (the model: model/site-settings.ts).
// Secret settings (the captcha provider's secret key) are stored sealed with
// the KEK, bound to their name, like webhook secrets: a copy of the database
// alone does not give them away. Reading a secret's clear value needs the KEK
// (siteSecret); getSiteSettings shows only whether one is set.
import {
  isSecretSetting,
  siteSettingsFrom,
  type SiteSettingKey,
  type SiteSettings,
  type StoredSiteValue,
  type StoredSiteValues,
} from '../model/site-settings.js';
import { open, seal, type Kek, type Sealed } from '../security/kek.js';
import type { Store } from './db.js';
import { currentDate } from '../runtime/clock.js';

// Re-exported for modules that still import these from the store.

const isSealed = (v: unknown): v is Sealed => typeof v === 'object' && v !== null && (v as Sealed).alg === 'A256GCM';
const aadOf = (key: SiteSettingKey) => `site-setting:${key}`;

async function storedValues(store: Store): Promise<StoredSiteValues> {
  return (await store.settings.findOne({ _id: 'site' }))?.values ?? {};
}

async function writeValue(store: Store, key: SiteSettingKey, stored: StoredSiteValue): Promise<void> {
  await store.settings.updateOne({ _id: 'site' }, { $set: { [`values.${key}`]: stored, updatedAt: currentDate() } }, { upsert: true });
}

const sealed = (kek: Kek, key: SiteSettingKey, value: string): Sealed => seal(kek, Buffer.from(value, 'utf8'), aadOf(key));

/** Every setting; a secret one as SECRET_IS_SET when set, '' when not. */
export async function getSiteSettings(store: Store): Promise<SiteSettings> {
  return siteSettingsFrom(await storedValues(store));
}

/** The clear value of a secret setting ('' when unset). */
export async function siteSecret(store: Store, kek: Kek, key: SiteSettingKey): Promise<string> {
  const value = (await storedValues(store))[key];
  if (isSealed(value)) return open(kek, value, aadOf(key), `the site setting ${key}`).toString('utf8');
  return typeof value === 'string' ? value : '';
}

/**
 * Sets one (already validated) setting and returns whether it changed. A
 * non-empty secret is sealed first, which needs the KEK.
 */
export async function setSiteSetting<K extends SiteSettingKey>(store: Store, key: K, value: SiteSettings[K], kek?: Kek): Promise<{ changed: boolean }> {
  let stored: StoredSiteValue<K> = value;
  if (isSecretSetting(key) && value !== '') {
    if (!kek) throw new Error(`the site setting ${key} is a secret: it is stored sealed, which needs the key-encryption key`);
    stored = sealed(kek, key, String(value));
  }
  const previous = isSecretSetting(key) && kek ? await siteSecret(store, kek, key) : (await getSiteSettings(store))[key];
  await writeValue(store, key, stored);
  return { changed: previous !== value };
}
