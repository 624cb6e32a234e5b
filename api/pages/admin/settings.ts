// /admin/settings: the site settings as a form, changed through
// lib/admin/config-changes.ts (the admin API's and CLI's checks, sealing and
// event). Only the settings whose value differs from the stored one are sent,
// so a form loaded before someone else's change does not undo it; a secret
// is sent only when typed (or cleared by its checkbox).
import { Router, type Request, type Response } from 'express';
import { updateSiteSettings } from '../../../lib/admin/config-changes.js';
import { redactSiteSettings, SITE_SETTINGS } from '../../../lib/model/site-settings.js';
import { getSiteSettings } from '../../../lib/store/settings.js';
import { sessionActor } from '../../../lib/webhooks/event-sources.js';
import type { SafeHtml } from '../../html/html.js';
import { FormValues } from '../../http/input.js';
import { adminSettingsPage, SETTING_KEYS, settingsDraftOf, type SettingsDraft } from '../../views/admin/settings.js';
import { adminForm, adminOf, type AdminConsoleDeps } from './admin-page.js';
import { doneAt, doneNotice } from '../../http/done.js';
import { ADMIN_PAGES } from '../../paths.js';

const SETTINGS_DONE = { saved: 'Settings saved.', unchanged: 'Nothing changed.' };

/** A form field as one string ('' when absent; a repeated field's first value). */
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? (v[0] ?? '') : (v ?? ''));

/** What was sent, as the form shows it again (never a secret: its field stays empty). */
function draftFrom(req: Request): SettingsDraft {
  const form = FormValues.parse(req.body);
  return Object.fromEntries(
    SETTING_KEYS.map((k) => {
      if (SITE_SETTINGS[k].secret) return [k, ''];
      // An unticked checkbox is not sent: the yes/no setting is then false.
      return [k, typeof SITE_SETTINGS[k].default === 'boolean' ? String(one(form[k]) === 'true') : one(form[k]).trim()];
    }),
  ) as SettingsDraft;
}

/** The settings the form changes: the non-secret ones that differ from now, and a secret typed or cleared. */
function changesOf(req: Request, now: SettingsDraft): Record<string, string> {
  const form = FormValues.parse(req.body);
  const draft = draftFrom(req);
  const changes: Record<string, string> = {};
  for (const k of SETTING_KEYS) {
    if (!SITE_SETTINGS[k].secret) {
      if (draft[k] !== now[k]) changes[k] = draft[k];
    } else if (one(form[k]) !== '') changes[k] = one(form[k]);
    else if (one(form[`clear_${k}`]) === '1') changes[k] = '';
  }
  return changes;
}

export function adminSettingsRoutes(deps: AdminConsoleDeps): Router {
  const router = Router();

  async function show(req: Request, res: Response, draft?: SettingsDraft, notice?: SafeHtml, status = 200): Promise<void> {
    const now = redactSiteSettings(await getSiteSettings(deps.store));
    adminSettingsPage(res, adminOf(req).session.csrf, now, draft ?? settingsDraftOf(now), notice ?? doneNotice(req, SETTINGS_DONE), status);
  }

  router.get(ADMIN_PAGES.settings, (req, res) => show(req, res));
  adminForm(
    router,
    deps,
    ADMIN_PAGES.settings,
    () => ADMIN_PAGES.settings,
    async (req) => {
      const changes = changesOf(req, settingsDraftOf(redactSiteSettings(await getSiteSettings(deps.store))));
      if (Object.keys(changes).length === 0) return doneAt(ADMIN_PAGES.settings, 'unchanged');
      await updateSiteSettings(deps, changes, sessionActor(adminOf(req).user._id));
      return doneAt(ADMIN_PAGES.settings, 'saved');
    },
    (req, res, notice, status) => show(req, res, draftFrom(req), notice, status),
  );
  return router;
}
