// /admin/webhooks: the admin webhooks and their latest deliveries, read only.
// Creating and deleting them (URL checks, the per-site cap, their events) is
// written only inside the webhook API's route (api/routes/webhooks.ts), so the
// console links to that API rather than copy it.
import { Router } from 'express';
import { listWebhooks, recentDeliveries } from '../../../lib/store/webhooks.js';
import { WEBHOOK_RULES } from '../../routes/webhooks.rules.js';
import { ADMIN_WEBHOOKS, adminWebhooksPage } from '../../views/admin/webhooks.js';
import type { AdminConsoleDeps } from './admin-page.js';

/** Deliveries shown per webhook. */
const RECENT = 5;

export function adminWebhooksRoutes(deps: AdminConsoleDeps): Router {
  const router = Router();
  router.get(ADMIN_WEBHOOKS, async (_req, res) => {
    const hooks = await listWebhooks(deps.store, 'admin');
    const rows = await Promise.all(hooks.map(async (webhook) => ({ webhook, deliveries: await recentDeliveries(deps.store, webhook._id, RECENT) })));
    adminWebhooksPage(res, rows, WEBHOOK_RULES.admin.base);
  });
  return router;
}
