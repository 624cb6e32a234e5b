// /account/connected-apps: the apps the signed-in user allowed (their
// consents), and "Remove access" per app (lib/authorization/consent-revocation.ts).
// CSRF on the form; a user only ever reaches their own consents (the consent's
// key is the session's user and the client).
import express, { Router, type Response } from 'express';
import { removeClientAccess } from '../../lib/authorization/consent-revocation.js';
import { findClient } from '../../lib/store/clients.js';
import { listUserConsents } from '../../lib/store/consents.js';
import { html, type SafeHtml } from '../html/html.js';
import { csrfGuard, signedInUser, type SignedIn } from '../http/signed-in.js';
import { connectedAppsPage, type ConnectedApp } from '../views/connected-apps.js';
import type { ApiContext } from '../context.js';
import { PAGES } from '../paths.js';

export type ConnectedAppsPageDeps = Pick<ApiContext, 'store' | 'secureCookies' | 'flows' | 'audit'>;

export function connectedAppsPageRoutes(deps: ConnectedAppsPageDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  async function page(res: Response, s: SignedIn, notice?: SafeHtml): Promise<void> {
    const consents = await listUserConsents(deps.store, s.user._id);
    const apps: ConnectedApp[] = await Promise.all(
      consents.map(async (c) => ({
        clientId: c.clientId,
        name: (await findClient(deps.store, c.clientId))?.name ?? null,
        scopes: c.scopes,
        updatedAt: c.updatedAt,
      })),
    );
    connectedAppsPage(
      res,
      s,
      apps.sort((a, b) => (a.name ?? a.clientId).localeCompare(b.name ?? b.clientId)),
      notice,
    );
  }

  router.get(PAGES.connectedApps, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (s) await page(res, s);
  });

  router.post(`${PAGES.connectedApps}/:clientId/remove`, form, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s)) return;
    const removed = await removeClientAccess(deps, s.user._id, String(req.params.clientId), { type: 'user', userId: s.user._id });
    await page(
      res,
      s,
      removed ? html`<p role="status">That app's access is removed.</p>` : html`<p class="error" role="alert">That app had no access to remove.</p>`,
    );
  });

  return router;
}
