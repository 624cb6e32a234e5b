// /admin: the console's overview.
import { Router } from 'express';
import { siteCounts } from '../../../lib/store/site-counts.js';
import { overviewPage } from '../../views/admin/overview.js';
import type { AdminConsoleDeps } from './admin-page.js';
import { ADMIN_PAGES } from '../../paths.js';

export function adminOverviewRoutes(deps: AdminConsoleDeps): Router {
  const router = Router();
  router.get(ADMIN_PAGES.home, async (_req, res) => overviewPage(res, await siteCounts(deps.store)));
  return router;
}
