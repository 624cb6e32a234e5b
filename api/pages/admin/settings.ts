// /admin/settings: the site settings, read only (secret values masked).
import { Router } from 'express';
import { redactSiteSettings } from '../../../lib/domain/site-settings.js';
import { getSiteSettings } from '../../../lib/store/settings.js';
import { ADMIN_SETTINGS, adminSettingsPage } from '../../views/admin/settings.js';
import type { AdminConsoleDeps } from './admin-page.js';

export function adminSettingsRoutes(deps: AdminConsoleDeps): Router {
  const router = Router();
  router.get(ADMIN_SETTINGS, async (_req, res) => adminSettingsPage(res, redactSiteSettings(await getSiteSettings(deps.store))));
  return router;
}
