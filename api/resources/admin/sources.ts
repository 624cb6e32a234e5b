// OAuth sources (upstream identity providers for "Sign in with …") at
// /api/oauth/me/admin/oauth_sources, for a site admin's token: reading needs
// `admin:config:read`, changes `admin:config:write`. The token's user must be
// a site admin, re-read on every request (adminArea, api/resources/admin/admin-area.ts:
// a demoted admin's tokens stop working here at once; anyone else gets 404
// not_found). Answers never
// carry the client secret, only `client_secret_set`. The changes themselves,
// their checks and admin events are lib/sources/source-changes.ts.
import express, { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { NotFoundError } from '../../../lib/model/errors.js';
import { sourceJson, type OAuthSourceDoc } from '../../../lib/model/oauth-sources.js';
import { createSource, removeSource, updateSource } from '../../../lib/sources/source-changes.js';
import { findSource, listSources } from '../../../lib/store/oauth-sources.js';
import { tokenActor } from '../../../lib/webhooks/event-sources.js';
import { methodNotAllowed } from '../../http/errors.js';
import { requireScopes } from '../../protocol/shared/bearer.js';
import type { ApiContext } from '../../context.js';
import { jsonBody, send, refusalsAnswered } from '../../http/json-api.js';
import { ADMIN_RESOURCES } from '../../paths.js';

const BASE = ADMIN_RESOURCES.sources;

export type SourcesAdminApiDeps = Pick<ApiContext, 'issuer' | 'keyring' | 'store' | 'kek' | 'events' | 'audit'>;

export function sourcesAdminApiRoutes(deps: SourcesAdminApiDeps): Router {
  const router = Router();
  const json = express.json({ limit: '64kb' });
  // The token and its user's role were checked by adminArea: the scope is left.
  const read = requireScopes(deps, ['admin:config:read']);
  const write = requireScopes(deps, ['admin:config:write']);
  /** Any JSON body is read here; what it holds is checked by the change (a JSON 400 naming the field). */
  const body = (req: Request): unknown => jsonBody(req, z.unknown());

  /** The source named in the path, or a 404. */
  async function named(req: Request): Promise<OAuthSourceDoc> {
    const id = String(req.params.id ?? '');
    const source = id.length <= 100 ? await findSource(deps.store, id) : null;
    if (!source) throw new NotFoundError('no such source');
    return source;
  }

  router.get(
    BASE,
    read,
    refusalsAnswered(async (_req, res) => send(res, 200, { oauth_sources: (await listSources(deps.store)).map(sourceJson) })),
  );
  router.post(
    BASE,
    write,
    json,
    refusalsAnswered(async (req: Request, res: Response) => {
      const source = await createSource(deps, body(req), tokenActor(req));
      res.set('Location', `${deps.issuer}${BASE}/${encodeURIComponent(source._id)}`);
      send(res, 201, sourceJson(source));
    }),
  );
  router.all(BASE, methodNotAllowed(['GET', 'POST']));

  const one = `${BASE}/:id`;
  router.get(
    one,
    read,
    refusalsAnswered(async (req, res) => send(res, 200, sourceJson(await named(req)))),
  );
  router.patch(
    one,
    write,
    json,
    refusalsAnswered(async (req, res) => send(res, 200, sourceJson(await updateSource(deps, await named(req), body(req), tokenActor(req))))),
  );
  router.delete(
    one,
    write,
    refusalsAnswered(async (req, res) => {
      await removeSource(deps, await named(req), tokenActor(req));
      send(res, 204);
    }),
  );
  router.all(one, methodNotAllowed(['GET', 'PATCH', 'DELETE']));
  return router;
}
