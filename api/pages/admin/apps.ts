// /admin/apps: every app on the instance; a site admin marks one verified or
// not, deactivates it (typing its client id) or reactivates it, and sets what
// it may get for itself with client_credentials (its machine access), through
// lib/admin/app-changes.ts (the admin API's and CLI's changes and events).
import { Router, type Request, type Response } from 'express';
import { changeApp, deactivateApp, reactivateApp, setAppVerified } from '../../../lib/admin/app-changes.js';
import type { MachineAccessEntry } from '../../../lib/model/machine-access.js';
import type { ClientDoc } from '../../../lib/model/clients.js';
import { NotFoundError, ValidationError } from '../../../lib/model/errors.js';
import { CLIENT_SORTS, findClient, pageClients } from '../../../lib/store/clients.js';
import { sessionActor } from '../../../lib/webhooks/event-sources.js';
import type { SafeHtml } from '../../html/html.js';
import { sendErrorPage } from '../../html/layout.js';
import { fieldsOf, formText } from '../../http/input.js';
import type { ApiContext } from '../../context.js';
import { adminAppPage, adminAppPath, adminAppsPage, APP_DONE } from '../../views/admin/apps.js';
import { errorNotice } from '../../views/teams.js';
import { adminForm, adminOf, offsetOf, PAGE_SIZE, sortingOf, type AdminConsoleDeps } from './admin-page.js';
import { doneAt, doneNotice } from '../../http/done.js';
import { ADMIN_PAGES } from '../../paths.js';

export type AdminAppsPageDeps = AdminConsoleDeps & Pick<ApiContext, 'flows'>;

const MAX_SEARCH = 200;
const Search = fieldsOf({ q: formText });
const sortingOfApps = sortingOf(CLIENT_SORTS, 'created');
const AppForm = fieldsOf({ verified: formText, confirm: formText });
const MachineForm = fieldsOf({ machine_access: formText });

export function adminAppsRoutes(deps: AdminAppsPageDeps): Router {
  const router = Router();
  const actor = (req: Request) => sessionActor(adminOf(req).user._id);

  router.get(ADMIN_PAGES.apps, async (req, res) => {
    const { q } = Search.parse(req.query);
    const order = sortingOfApps(req);
    const offset = offsetOf(req);
    if (q.length > MAX_SEARCH)
      return adminAppsPage(
        res,
        { q: '', ...order, apps: [], offset: 0, size: PAGE_SIZE, hasMore: false },
        errorNotice(`q: must be at most ${MAX_SEARCH} characters`),
        400,
      );
    const found = await pageClients(deps.store, q, PAGE_SIZE + 1, offset, order);
    adminAppsPage(res, { q, ...order, apps: found.slice(0, PAGE_SIZE), offset, size: PAGE_SIZE, hasMore: found.length > PAGE_SIZE });
  });

  /** The app of the path (deactivated ones too), or null (a longer id is not looked up). */
  async function named(req: Request): Promise<ClientDoc | null> {
    const id = String(req.params.id);
    return id.length <= 200 ? findClient(deps.store, id) : null;
  }

  async function existing(req: Request): Promise<ClientDoc> {
    const app = await named(req);
    if (!app) throw new NotFoundError('no such app');
    return app;
  }

  async function show(req: Request, res: Response, notice?: SafeHtml, status = 200): Promise<void> {
    const app = await named(req);
    if (!app) return sendErrorPage(res, 404, 'Not found', 'There is no such app.');
    adminAppPage(res, adminOf(req).session.csrf, app, notice ?? doneNotice(req, APP_DONE), status);
  }

  const one = `${ADMIN_PAGES.apps}/:id`;
  const page = (req: Request) => adminAppPath(String(req.params.id));
  router.get(one, (req, res) => show(req, res));

  const action = (path: string, change: (req: Request, app: ClientDoc) => Promise<string>) =>
    adminForm(router, deps, `${one}/${path}`, page, async (req) => doneAt(page(req), await change(req, await existing(req))), show);

  action('verify', async (req, app) => {
    const verified = AppForm.parse(req.body).verified === '1';
    await setAppVerified(deps, app, verified, actor(req));
    return verified ? 'verified' : 'unverified';
  });
  action('deactivate', async (req, app) => {
    if (AppForm.parse(req.body).confirm.trim() !== app._id)
      throw new ValidationError([`type the client id ${app._id} to deactivate the app; nothing was changed`]);
    await deactivateApp(deps, app, actor(req));
    return 'deactivated';
  });
  action('reactivate', async (req, app) => {
    await reactivateApp(deps, app, actor(req));
    return 'reactivated';
  });
  action('machine-access', async (req, app) => {
    await changeApp(deps, app, { machine_access: machineAccessLines(MachineForm.parse(req.body).machine_access) }, actor(req));
    return 'machine-access';
  });
  return router;
}

/** The machine access form's lines, `RESOURCE SCOPE SCOPE…` each (changeApp checks the values). */
function machineAccessLines(text: string): MachineAccessEntry[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim().split(/\s+/).filter(Boolean))
    .filter((words) => words.length > 0)
    .map(([resource, ...scopes]) => ({ resource: resource!, scopes }));
}
