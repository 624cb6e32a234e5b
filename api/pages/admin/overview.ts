// /admin: the console's overview.
import { Router } from 'express';
import { siteCounts } from '../../../lib/store/site-counts.js';
import { ADMIN_HOME } from '../../views/admin/layout.js';
import { overviewPage } from '../../views/admin/overview.js';
import type { AdminConsoleDeps } from './admin-page.js';

export function adminOverviewRoutes(deps: AdminConsoleDeps): Router {
  const router = Router();
  router.get(ADMIN_HOME, async (_req, res) => overviewPage(res, await siteCounts(deps.store)));
  return router;
}
