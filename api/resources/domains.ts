// The domain API: the user's custom domains at /api/oauth/me/domains.
// `domains:read` lists and reads; `domains:write` adds, asks for a check now
// and deletes. Another user's domain is 404. A domain is verified by its
// DomainVerification flow once the TXT record it names is published.
import express, { Router, type Request } from 'express';
import { AddDomainInput, domainJson } from '../../lib/model/custom-domains.js';
import { addUserDomain, removeUserDomain, userDomain, verifyUserDomain } from '../../lib/accounts/custom-domain-changes.js';
import { listDomains } from '../../lib/store/custom-domains.js';
import { tokenActor } from '../../lib/webhooks/event-sources.js';
import { methodNotAllowed } from '../http/errors.js';
import { requireAccessToken } from '../protocol/shared/bearer.js';
import type { ApiContext } from '../context.js';
import { jsonBody, send, refusalsAnswered as refusing } from '../http/json-api.js';
import { RESOURCES } from '../paths.js';

const BASE = RESOURCES.domains;

export type DomainsApiDeps = Pick<ApiContext, 'issuer' | 'keyring' | 'store' | 'flows' | 'events' | 'audit' | 'config'>;

export function domainsApiRoutes(deps: DomainsApiDeps): Router {
  const router = Router();
  const read = requireAccessToken(deps, ['domains:read']);
  const write = requireAccessToken(deps, ['domains:write']);
  const id = (params: Request['params']) => String(params.id ?? '');

  router.get(
    BASE,
    read,
    refusing(async (req, res) => send(res, 200, { domains: (await listDomains(deps.store, req.access!.userId)).map(domainJson) })),
  );
  router.post(
    BASE,
    write,
    express.json({ limit: '16kb' }),
    refusing(async (req, res) => {
      const d = await addUserDomain(deps, req.access!.userId, jsonBody(req, AddDomainInput).domain, tokenActor(req));
      res.set('Location', `${deps.issuer}${BASE}/${d._id}`);
      send(res, 201, domainJson(d));
    }),
  );
  router.all(BASE, methodNotAllowed(['GET', 'POST']));

  const one = `${BASE}/:id`;
  router.get(
    one,
    read,
    refusing(async (req, res) => send(res, 200, domainJson(await userDomain(deps.store, req.access!.userId, id(req.params))))),
  );
  router.delete(
    one,
    write,
    refusing(async (req, res) => {
      await removeUserDomain(deps, req.access!.userId, id(req.params), tokenActor(req));
      send(res, 204);
    }),
  );
  router.all(one, methodNotAllowed(['GET', 'DELETE']));

  router.post(
    `${one}/verify`,
    write,
    refusing(async (req, res) => {
      const d = await verifyUserDomain(deps, req.access!.userId, id(req.params));
      send(res, 202, { ...domainJson(d), state: d.verified ? 'verified' : 'pending' });
    }),
  );
  router.all(`${one}/verify`, methodNotAllowed(['POST']));
  return router;
}
