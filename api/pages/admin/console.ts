// The admin console under /admin: the gate before every /admin path and
// method, then each area's routes. A new area: its routes here and its nav
// entry in api/views/admin/layout.ts (ADMIN_NAV).
import { Router } from 'express';
import { adminAuditRoutes } from './audit.js';
import { adminGate, type AdminConsoleDeps } from './admin-page.js';
import { adminOverviewRoutes } from './overview.js';
import { adminSettingsRoutes } from './settings.js';
import { adminSourcesRoutes } from './sources.js';
import { adminTeamsRoutes } from './teams.js';
import { adminWebhooksRoutes } from './webhooks.js';

export type { AdminConsoleDeps };

const AREAS: ((deps: AdminConsoleDeps) => Router)[] = [
  adminOverviewRoutes,
  adminTeamsRoutes,
  adminSourcesRoutes,
  adminSettingsRoutes,
  adminAuditRoutes,
  adminWebhooksRoutes,
];

/** /admin and everything below it (routing ignores case, so the gate does too). */
const CONSOLE_PATH = /^\/admin(?:\/|$)/i;

export function adminConsoleRoutes(deps: AdminConsoleDeps): Router {
  const router = Router();
  const gate = adminGate(deps);
  router.use((req, res, next) => (CONSOLE_PATH.test(req.path) ? gate(req, res, next) : next()));
  for (const area of AREAS) router.use(area(deps));
  return router;
}
