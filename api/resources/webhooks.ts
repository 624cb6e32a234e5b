// The webhook management API (docs/webhooks.md "Management
// API"): user webhooks at /api/oauth/me/webhooks, admin webhooks at
// /api/oauth/me/admin/webhooks. One factory serves both; what differs between
// them is the table WEBHOOK_RULES (lib/webhooks/webhook-rules.ts), so every rule (validation, visibility, events,
// answers) is written once.
//
//   user    any user; only the token user's own webhooks exist (another
//           user's webhook is 404); scopes webhooks:read / webhooks:write
//   admin   the token's user must have role `admin`, checked BEFORE the scope
//           by adminArea (api/resources/admin/admin-area.ts): to anyone else every admin
//           route is 404 not_found, so a regular user cannot learn from a 403
//           or 405 that they exist. Admin webhooks belong to the site: every
//           admin sees all of them (ownerUserId = creator).
//
// Every change (its checks, its admin event, the secret shown once in the
// creation response) is lib/webhooks/webhook-changes.ts, shared with the admin
// console: this route reads HTTP and answers JSON.
import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import { TEST_EVENT, type WebhookScope } from '../../lib/model/webhook-events.js';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/model/errors.js';
import { recentDeliveries } from '../../lib/store/webhook-history.js';
import { listWebhooks } from '../../lib/store/webhooks.js';
import {
  addWebhook,
  editWebhook,
  removeWebhook,
  sendTestPing,
  TestPingUnavailable,
  visibleWebhook,
  WebhookConflict,
  type WebhookChangeDeps,
} from '../../lib/webhooks/webhook-changes.js';
import { WEBHOOK_RULES } from '../../lib/webhooks/webhook-rules.js';
import { tokenActor } from '../../lib/webhooks/event-sources.js';
import { methodNotAllowed, sendError } from '../http/errors.js';
import { inAdminArea } from './admin/admin-area.js';
import { requireAccessToken, requireScopes } from '../protocol/shared/bearer.js';
import { deliveryJson, testDeliveryJson, webhookJson } from '../views/webhooks.js';
import type { ApiContext } from '../context.js';

/** `flows` runs test pings; `outbound`'s allow-list refuses at once a URL it does not admit for webhooks. */
export type WebhookRoutesDeps = Pick<ApiContext, 'issuer' | 'keyring' | 'store' | 'kek' | 'events' | 'audit' | 'flows' | 'outbound'> &
  Pick<WebhookChangeDeps, 'deliveryTimeoutMs'>;

/** A handler whose refusals (from the change module) become the webhook API's JSON errors. */
function answered(fn: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return async (req, res) => {
    try {
      await fn(req, res);
    } catch (err) {
      if (err instanceof ValidationError) return sendError(res, 400, 'invalid_request', err.message);
      if (err instanceof NotFoundError) return sendError(res, 404, 'not_found', err.message);
      if (err instanceof WebhookConflict) return sendError(res, 409, err.code, err.message);
      if (err instanceof ConflictError) return sendError(res, 409, 'conflict', err.message);
      if (err instanceof TestPingUnavailable) return sendError(res, 503, 'temporarily_unavailable', err.message);
      throw err;
    }
  };
}

export function webhookRoutes(deps: WebhookRoutesDeps): Router {
  const router = Router();
  router.use(webhookResource(deps, 'user'));
  router.use(webhookResource(deps, 'admin'));
  return router;
}

function webhookResource(deps: WebhookRoutesDeps, scope: WebhookScope): Router {
  const rules = WEBHOOK_RULES[scope];
  const changeDeps: WebhookChangeDeps = deps;
  const router = Router();
  const json = express.json({ limit: '64kb' });
  const send = (res: Response, status: number, body: unknown) => res.status(status).set('Cache-Control', 'no-store').json(body);

  /** Admin routes sit behind adminArea, which has checked the token and the role: the scope is left. */
  const authenticate = inAdminArea(rules.base) ? [] : [requireAccessToken(deps, [])];
  const guard = (need?: string): RequestHandler[] => [...authenticate, ...(need ? [requireScopes(deps, [need])] : [])];
  const read = guard(rules.scopes.read);
  const write = guard(rules.scopes.write);
  const remove = guard(rules.scopes.delete);
  /** Wrong methods: 405, but only to a caller who may see the route (a non-admin gets 404 from adminArea). */
  const wrongMethod = (allowed: string[]) => [...guard(), methodNotAllowed(allowed)];

  /** The webhook named in the path, if the caller may see it (another user's webhook is 404). */
  const visible = (req: Request) => visibleWebhook(deps.store, scope, req.access!.userId, String(req.params.id ?? ''));

  /** The JSON body as sent (the change reads it with its schema); any other content type is refused. */
  function jsonBody(req: Request): unknown {
    if (!req.is('application/json')) throw new ValidationError(['the body must be application/json']);
    return req.body;
  }

  // GET list, POST create
  router.get(rules.base, read, async (req: Request, res: Response) => {
    const hooks = await listWebhooks(deps.store, scope, req.access!.userId);
    send(res, 200, { webhooks: hooks.map(webhookJson) });
  });

  router.post(
    rules.base,
    write,
    json,
    answered(async (req, res) => {
      const { webhook, secret } = await addWebhook(changeDeps, scope, req.access!.userId, jsonBody(req), tokenActor(req));
      res.set('Location', `${deps.issuer}${rules.base}/${encodeURIComponent(webhook._id)}`);
      const { id, name, url, is_active, created_at } = webhookJson(webhook);
      send(res, 201, { webhook: { id, name, url, secret, events: webhook.events, is_active, created_at } });
    }),
  );
  router.all(rules.base, wrongMethod(['GET', 'POST']));

  // One webhook: GET, PATCH, DELETE
  const one = `${rules.base}/:id`;
  router.get(
    one,
    read,
    answered(async (req, res) => {
      send(res, 200, { webhook: webhookJson(await visible(req)) });
    }),
  );

  router.patch(
    one,
    write,
    json,
    answered(async (req, res) => {
      const hook = await visible(req);
      send(res, 200, { webhook: webhookJson(await editWebhook(changeDeps, hook, jsonBody(req), tokenActor(req))) });
    }),
  );

  router.delete(
    one,
    remove,
    answered(async (req, res) => {
      await removeWebhook(changeDeps, await visible(req), tokenActor(req));
      res.status(204).set('Cache-Control', 'no-store').end();
    }),
  );
  router.all(one, wrongMethod(['GET', 'PATCH', 'DELETE']));

  // POST test: a webhook.test delivery now, its outcome in the answer and the history
  router.post(
    `${one}/test`,
    write,
    answered(async (req, res) => {
      const { deliveryId, outcome } = await sendTestPing(changeDeps, await visible(req));
      send(res, 200, { delivery: testDeliveryJson(deliveryId, TEST_EVENT, outcome) });
    }),
  );
  router.all(`${one}/test`, wrongMethod(['POST']));

  // GET deliveries: newest first, at most HISTORY_LIMIT
  router.get(
    `${one}/deliveries`,
    read,
    answered(async (req, res) => {
      const deliveries = await recentDeliveries(deps.store, (await visible(req))._id);
      send(res, 200, { deliveries: deliveries.map(deliveryJson) });
    }),
  );
  router.all(`${one}/deliveries`, wrongMethod(['GET']));
  return router;
}
