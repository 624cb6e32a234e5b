// WebFinger (RFC 7033) issuer discovery.
import { Router } from 'express';
import { z } from 'zod';
import { WELL_KNOWN } from '../../domain/discovery.js';
import { parseAcctResource, webfingerDocument } from '../../domain/webfinger.js';
import type { Store } from '../../store/db.js';
import { findUserByEmail, findUserByUsername } from '../../store/users.js';
import { sendError } from '../http/errors.js';
import { sendPublicJson } from './discovery.js';

const Query = z.object({
  resource: z.string().optional(),
  rel: z.union([z.string(), z.array(z.string())]).optional(),
});

export function webfingerRoutes(issuer: string, store: Store): Router {
  const router = Router();
  const issuerHost = new URL(issuer).host;
  router.get(WELL_KNOWN.webfinger, async (req, res) => {
    const query = Query.safeParse(req.query);
    if (!query.success) return sendError(res, 400, 'invalid_request', 'resource and rel must each be given as plain strings', { 'Access-Control-Allow-Origin': '*' });
    const parsed = parseAcctResource(query.data.resource, issuerHost);
    if ('error' in parsed) return sendError(res, 400, 'invalid_request', parsed.error, { 'Access-Control-Allow-Origin': '*' });
    for (const lookup of parsed.lookups) {
      const user = lookup.kind === 'email' ? await findUserByEmail(store, lookup.email) : await findUserByUsername(store, lookup.username);
      if (user) {
        const rels = query.data.rel === undefined ? [] : [query.data.rel].flat();
        return sendPublicJson(res, webfingerDocument(query.data.resource!, issuer, rels), 'public, max-age=300', 'application/jrd+json');
      }
    }
    return sendError(res, 404, 'not_found', 'no account matches this resource', { 'Access-Control-Allow-Origin': '*' });
  });
  return router;
}
