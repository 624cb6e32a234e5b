// Site settings: one document, defaults filled in from domain/site-settings.
import { defaultSiteSettings, type SiteSettingKey, type SiteSettings } from '../domain/site-settings.js';
import type { Store } from './db.js';

export interface SettingsDoc {
  _id: 'site';
  values: Partial<SiteSettings>;
  updatedAt: Date;
}

export async function getSiteSettings(store: Store): Promise<SiteSettings> {
  const doc = await store.settings.findOne({ _id: 'site' });
  return { ...defaultSiteSettings(), ...doc?.values };
}

/** Sets one (already validated) setting atomically and returns the previous and new values. */
export async function setSiteSetting<K extends SiteSettingKey>(
  store: Store,
  key: K,
  value: SiteSettings[K],
): Promise<{ previous: SiteSettings[K]; value: SiteSettings[K] }> {
  const before = await store.settings.findOneAndUpdate(
    { _id: 'site' },
    { $set: { [`values.${key}`]: value, updatedAt: new Date() } },
    { upsert: true, returnDocument: 'before' },
  );
  const previous = (before?.values?.[key] ?? defaultSiteSettings()[key]) as SiteSettings[K];
  return { previous, value };
}
