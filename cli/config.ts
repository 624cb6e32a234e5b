// `keyflow config get|set`: the site settings, read redacted and changed
// through the admin API's change (admin/config-changes.ts): the same checks, a
// secret sealed with the KEK, admin.config.update only when the value changes.
import type { Config } from '../lib/config/env.js';
import { isSiteSettingKey, redactSiteSettings, SITE_SETTINGS } from '../lib/model/site-settings.js';
import { updateSiteSettings } from '../lib/admin/config-changes.js';
import { loadKek } from '../lib/security/kek.js';
import type { Store } from '../lib/store/db.js';
import { getSiteSettings } from '../lib/store/settings.js';
import { cliAudit, cliEvents, OPERATOR } from './events.js';
import { parseCommand, print, UsageError } from './usage.js';
import { optionsOf } from './commands.js';

export async function configCommand(store: Store, cfg: Config, sub: string | undefined, argv: string[]): Promise<void> {
  const keys = Object.keys(SITE_SETTINGS).join(', ');
  if (sub === 'get') {
    const { positionals } = parseCommand(argv, optionsOf('config get'), 1);
    const settings = redactSiteSettings(await getSiteSettings(store));
    const key = positionals[0];
    if (key === undefined) return print(settings);
    if (!isSiteSettingKey(key)) throw new UsageError(`unknown setting ${key} (known: ${keys})`);
    return print({ [key]: settings[key] });
  }
  if (sub === 'set') {
    const { positionals } = parseCommand(argv, optionsOf('config set'), 2);
    const [key, raw] = positionals;
    if (key === undefined || raw === undefined) throw new UsageError('config set needs KEY and VALUE');
    if (!isSiteSettingKey(key)) throw new UsageError(`unknown setting ${key} (known: ${keys})`);
    const events = cliEvents(cfg, store);
    try {
      return print(await updateSiteSettings({ store, kek: loadKek(cfg.kek, cfg.dataDir), events, audit: cliAudit(store) }, { [key]: raw }, OPERATOR));
    } finally {
      await events.finish();
    }
  }
  throw new UsageError(`unknown command: config ${sub ?? ''}`.trim());
}
