// The site settings at /api/oauth/me/admin/config, for a site admin's token
// (adminArea, then adminScopes: `admin:config:*` or `site:config:*`). Secret settings read as
// "********" when set. PATCH takes {key: value, ...}: every key and value is
// checked before any is written (lib/admin/config-changes.ts, as the CLI's
// `config set`), and answers with the settings after.
import express, { Router } from 'express';
import { z } from 'zod';
import { updateSiteSettings } from '../../../lib/admin/config-changes.js';
import { redactSiteSettings } from '../../../lib/model/site-settings.js';
import { getSiteSettings } from '../../../lib/store/settings.js';
import { tokenActor } from '../../../lib/webhooks/event-sources.js';
import { methodNotAllowed } from '../../http/errors.js';
import { jsonBody, refusalsAnswered, send } from '../../http/json-api.js';
import { adminScopes } from './admin-area.js';
import type { ApiContext } from '../../context.js';
import { ADMIN_RESOURCES } from '../../paths.js';

const BASE = ADMIN_RESOURCES.config;

export type AdminConfigApiDeps = Pick<ApiContext, 'issuer' | 'keyring' | 'store' | 'kek' | 'events' | 'audit'>;

export function adminConfigApiRoutes(deps: AdminConfigApiDeps): Router {
  const router = Router();
  router.get(
    BASE,
    adminScopes(deps, 'config:read'),
    refusalsAnswered(async (_req, res) => send(res, 200, redactSiteSettings(await getSiteSettings(deps.store)))),
  );
  router.patch(
    BASE,
    adminScopes(deps, 'config:write'),
    express.json({ limit: '16kb' }),
    refusalsAnswered(async (req, res) => send(res, 200, await updateSiteSettings(deps, jsonBody(req, z.unknown()), tokenActor(req)))),
  );
  router.all(BASE, methodNotAllowed(['GET', 'PATCH']));
  return router;
}
