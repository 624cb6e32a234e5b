// The admin console under /admin: the gate before every /admin path and
// method, then each area's routes. A new area: its routes here and its nav
// entry in api/views/admin/layout.ts (ADMIN_NAV).
import { Router } from 'express';
import { adminAppsRoutes, type AdminAppsPageDeps } from './apps.js';
import { adminAuditRoutes } from './audit.js';
import { adminGate, type AdminConsoleDeps } from './admin-page.js';
import { adminInvitesRoutes, type AdminInvitesPageDeps } from './invites.js';
import { adminOverviewRoutes } from './overview.js';
import { adminSettingsRoutes } from './settings.js';
import { adminSourcesRoutes } from './sources.js';
import { adminTeamsRoutes } from './teams.js';
import { adminUsersRoutes, type AdminUsersPageDeps } from './users.js';
import { adminWebhooksRoutes } from './webhooks.js';
import { ADMIN_PAGES } from '../../paths.js';

/** What the areas together need (the api passes its whole context). */
type ConsoleDeps = AdminConsoleDeps & AdminUsersPageDeps & AdminAppsPageDeps & AdminInvitesPageDeps;

const AREAS: ((deps: ConsoleDeps) => Router)[] = [
  adminOverviewRoutes,
  adminUsersRoutes,
  adminAppsRoutes,
  adminInvitesRoutes,
  adminTeamsRoutes,
  adminSourcesRoutes,
  adminSettingsRoutes,
  adminAuditRoutes,
  adminWebhooksRoutes,
];

/** /admin and everything below it (routing ignores case, so the gate does too). */
const CONSOLE_PATH = new RegExp(`^${ADMIN_PAGES.home}(?:/|$)`, 'i');

export function adminConsoleRoutes(deps: ConsoleDeps): Router {
  const router = Router();
  const gate = adminGate(deps);
  router.use((req, res, next) => (CONSOLE_PATH.test(req.path) ? gate(req, res, next) : next()));
  for (const area of AREAS) router.use(area(deps));
  return router;
}
