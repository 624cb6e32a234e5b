// WebFinger (RFC 7033) issuer discovery: the same answer for every account of
// this issuer's host, without a lookup (see model/webfinger.ts), limited per
// client address.
import { Router } from 'express';
import { z } from 'zod';
import { parseAcctResource, webfingerDocument } from '../../lib/model/webfinger.js';
import { sendError } from '../http/errors.js';
import { limitPerIp, type RequestLimitDeps } from '../http/request-limits.js';
import { sendPublicJson } from './discovery.js';
import { WELL_KNOWN } from '../paths.js';

const Query = z.object({
  resource: z.string().optional(),
  rel: z.union([z.string(), z.array(z.string())]).optional(),
});

const CORS = { 'Access-Control-Allow-Origin': '*' };

export function webfingerRoutes(issuer: string, deps: RequestLimitDeps): Router {
  const router = Router();
  const issuerHost = new URL(issuer).host;
  router.get(WELL_KNOWN.webfinger, limitPerIp(deps, 'webfinger', CORS), (req, res) => {
    const query = Query.safeParse(req.query);
    if (!query.success) return sendError(res, 400, 'invalid_request', 'resource and rel must each be given as plain strings', CORS);
    const parsed = parseAcctResource(query.data.resource, issuerHost);
    if ('error' in parsed) return sendError(res, 400, 'invalid_request', parsed.error, CORS);
    if (!parsed.ownHost) return sendError(res, 404, 'not_found', `this server answers for accounts at ${issuerHost} only`, CORS);
    const rels = query.data.rel === undefined ? [] : [query.data.rel].flat();
    sendPublicJson(res, webfingerDocument(query.data.resource!, issuer, rels), 'public, max-age=300', 'application/jrd+json');
  });
  return router;
}
