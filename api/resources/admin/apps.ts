// Every app on the instance at /api/oauth/me/admin/apps, for a site admin's
// token (adminArea, then adminScopes: `admin:config:*` or `site:config:*`). Listing and reading
// show each app as the app API does, with its owner; PATCH marks an app
// verified or not and deactivates or reactivates it (lib/admin/app-changes.ts).
import express, { Router, type Request } from 'express';
import { z } from 'zod';
import { adminAppJson, appChangeJson } from '../../../lib/admin/app-json.js';
import type { ClientDoc } from '../../../lib/model/clients.js';
import { NotFoundError } from '../../../lib/model/errors.js';
import { changeApp } from '../../../lib/admin/app-changes.js';
import { findClient, pageClients } from '../../../lib/store/clients.js';
import { tokenActor } from '../../../lib/webhooks/event-sources.js';
import { methodNotAllowed } from '../../http/errors.js';
import { fieldsOf } from '../../http/input.js';
import { jsonBody, parse, refusalsAnswered, send } from '../../http/json-api.js';
import { adminScopes } from './admin-area.js';
import type { ApiContext } from '../../context.js';
import { ADMIN_RESOURCES } from '../../paths.js';

const BASE = ADMIN_RESOURCES.apps;

/** A whole number in a query string (no signs, exponents or spaces). */
const wholeNumber = z
  .string()
  .regex(/^\d{1,9}$/, 'must be a whole number')
  .transform(Number);
const AppsQuery = fieldsOf({
  q: z.string().max(200, 'must be at most 200 characters').default(''),
  limit: wholeNumber.pipe(z.number().min(1, 'must be at least 1').max(500, 'must be at most 500')).default(100),
  offset: wholeNumber.default(0),
});

export type AdminAppsApiDeps = Pick<ApiContext, 'issuer' | 'keyring' | 'store' | 'flows' | 'events' | 'audit'>;

export function adminAppsApiRoutes(deps: AdminAppsApiDeps): Router {
  const router = Router();
  const json = express.json({ limit: '16kb' });

  /** The app named in the path (deactivated ones too), or a 404. */
  async function named(req: Request): Promise<ClientDoc> {
    const id = String(req.params.id ?? '');
    const client = id.length <= 200 ? await findClient(deps.store, id) : null;
    if (!client) throw new NotFoundError('no such app');
    return client;
  }

  router.get(
    BASE,
    adminScopes(deps, 'apps:read'),
    refusalsAnswered(async (req, res) => {
      const { q, limit, offset } = parse(AppsQuery, req.query);
      send(res, 200, { apps: (await pageClients(deps.store, q, limit, offset)).map(adminAppJson) });
    }),
  );
  router.all(BASE, methodNotAllowed(['GET']));

  const one = `${BASE}/:id`;
  router.get(
    one,
    adminScopes(deps, 'apps:read'),
    refusalsAnswered(async (req, res) => send(res, 200, adminAppJson(await named(req)))),
  );
  router.patch(
    one,
    adminScopes(deps, 'apps:write'),
    json,
    refusalsAnswered(async (req, res) => {
      send(res, 200, appChangeJson(await changeApp(deps, await named(req), jsonBody(req, z.unknown()), tokenActor(req))));
    }),
  );
  router.all(one, methodNotAllowed(['GET', 'PATCH']));
  return router;
}
