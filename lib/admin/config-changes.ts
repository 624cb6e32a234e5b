// Changes to the site settings, for the admin API and the operator CLI alike:
// every key and value checked first (parseSiteSetting: one bad key or value
// and nothing is written), secret settings sealed with the KEK as they are
// stored, and one `admin.config.update` naming the settings that changed
// (a secret's value never in it), recorded in the audit trail as config.changed.
import { ValidationError } from '../model/errors.js';
import { isSiteSettingKey, parseSiteSetting, redactSiteSettings, SITE_SETTINGS, type SiteSettingKey } from '../model/site-settings.js';
import type { AdminEvent, EventActor } from '../model/webhook-events.js';
import type { Kek } from '../security/kek.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { Store } from '../store/db.js';
import { getSiteSettings, setSiteSetting } from '../store/settings.js';

export interface ConfigChangeDeps {
  store: Store;
  kek: Kek;
  events: { admin(name: AdminEvent, data: Record<string, unknown>, actor: EventActor): Promise<void> };
  audit: Pick<AuditTrail, 'record'>;
}

/** `admin.config.update`'s data: the keys that changed, and their new values except secret ones (absent). */
export function configUpdateData(changes: Partial<Record<SiteSettingKey, unknown>>): Record<string, unknown> {
  const keys = Object.keys(changes) as SiteSettingKey[];
  return { changed: keys, values: Object.fromEntries(keys.filter((k) => !SITE_SETTINGS[k].secret).map((k) => [k, changes[k]])) };
}

/** The settings in `input` ({key: value}, values as JSON or text) checked, or a ValidationError naming each bad key. */
function checkedSettings(input: unknown): [SiteSettingKey, unknown][] {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new ValidationError(['the body must be a JSON object of settings']);
  const entries = Object.entries(input);
  if (entries.length === 0) throw new ValidationError(['name at least one setting']);
  const problems: string[] = [];
  const checked: [SiteSettingKey, unknown][] = [];
  // Every value is parsed here so that nothing is written unless all are good.
  for (const [key, raw] of entries) {
    if (!isSiteSettingKey(key)) {
      problems.push(`${key}: unknown setting (known: ${Object.keys(SITE_SETTINGS).join(', ')})`);
      continue;
    }
    try {
      parseSiteSetting(key, raw);
      checked.push([key, raw]);
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  if (problems.length) throw new ValidationError(problems);
  return checked;
}

/** One setting (already checked) parsed to its type and stored. */
async function setOne<K extends SiteSettingKey>(deps: ConfigChangeDeps, key: K, raw: unknown): Promise<{ changed: boolean; value: unknown }> {
  const value = parseSiteSetting(key, raw);
  return { ...(await setSiteSetting(deps.store, key, value, deps.kek)), value };
}

/**
 * Sets several settings at once; returns the settings after, secrets masked.
 * A value a setting already has changes nothing: no event names it.
 */
export async function updateSiteSettings(deps: ConfigChangeDeps, input: unknown, actor: EventActor): Promise<Record<string, unknown>> {
  const changes: Partial<Record<SiteSettingKey, unknown>> = {};
  for (const [key, raw] of checkedSettings(input)) {
    const { changed, value } = await setOne(deps, key, raw);
    if (changed) changes[key] = value;
  }
  if (Object.keys(changes).length) {
    const data = configUpdateData(changes);
    await Promise.all([deps.events.admin('admin.config.update', data, actor), deps.audit.record('config.changed', { actor, data })]);
  }
  return redactSiteSettings(await getSiteSettings(deps.store));
}
