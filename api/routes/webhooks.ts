// The webhook management API (README "Webhooks → Management
// API"): user webhooks at /api/oauth/me/webhooks, admin webhooks at
// /api/oauth/me/admin/webhooks. One factory serves both; what differs between
// them is the table RULES below, so every rule (validation, visibility, events,
// answers) is written once.
//
//   user    any user; only the token user's own webhooks exist (another
//           user's webhook is 404); scopes webhooks:read / webhooks:write
//   admin   the token's user must have role `admin`, checked BEFORE the scope:
//           to anyone else every admin route is 404 not_found, so a regular
//           user cannot learn from a 403 that they exist. Admin webhooks belong
//           to the site: every admin sees all of them (ownerUserId = creator).
//
// Every change emits an admin event (webhook.create / webhook.update /
// webhook.delete: audit log + admin webhooks) whose data carries ids, the name,
// the URL's host only (webhook URLs often carry a secret in their path or
// query) and never the signing secret. The secret is shown once: in the
// creation response.
import { randomUUID } from 'node:crypto';
import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import type { DeliveryOutcome, WebhookDeliveryInput } from '../../lib/domain/webhook-delivery.js';
import { checkSubscription, TEST_EVENT, type WebhookScope } from '../../lib/domain/webhook-events.js';
import {
  createWebhook,
  deleteWebhook,
  findWebhook,
  listWebhooks,
  recentDeliveries,
  updateWebhook,
  type WebhookChanges,
  type WebhookDoc,
} from '../../lib/store/webhooks.js';
import { runTestPing } from '../../lib/flows/webhook-delivery.js';
import { methodNotAllowed, sendError } from '../http/errors.js';
import { siteAdminOnly } from '../http/site-admin.js';
import { requireAccessToken, requireScopes } from '../oauth/bearer.js';
import { deliveryJson, testDeliveryJson, unix, urlHost, webhookJson } from '../views/webhooks.js';
import { CreateBody, describe, PatchBody } from './webhooks.schema.js';
import { MAX_ID_LENGTH, undeliverable, WEBHOOK_RULES } from './webhooks.rules.js';
import type { ApiContext } from '../context.js';

/** `flows` runs test pings; `outbound`'s allow-list refuses at once a URL it does not admit for webhooks. */
export interface WebhookRoutesDeps extends Pick<ApiContext, 'issuer' | 'keyring' | 'store' | 'kek' | 'events' | 'flows' | 'outbound'> {
  /** WEBHOOK_TIMEOUT_MS: how long a test ping's receiver has to answer. */
  deliveryTimeoutMs: number;
}

const TEST_MESSAGE = 'This is a test delivery from Keyflow.';
/** How much longer than the delivery timeout a test ping may take before the api gives up waiting (503). */
const TEST_GRACE_MS = 10_000;

export function webhookRoutes(deps: WebhookRoutesDeps): Router {
  const router = Router();
  router.use(webhookResource(deps, 'user'));
  router.use(webhookResource(deps, 'admin'));
  return router;
}

function webhookResource(deps: WebhookRoutesDeps, scope: WebhookScope): Router {
  const rules = WEBHOOK_RULES[scope];
  const router = Router();
  const json = express.json({ limit: '64kb' });
  const send = (res: Response, status: number, body: unknown) => res.status(status).set('Cache-Control', 'no-store').json(body);

  const authenticate = requireAccessToken(deps, []);
  const siteAdmin = siteAdminOnly(deps);
  /** Admin routes: 404 to anyone whose role is not `admin`, before any scope check. */
  const adminGate: RequestHandler = (req, res, next) => (rules.adminOnly ? siteAdmin(req, res, next) : next());
  const guard = (need?: string): RequestHandler[] => [authenticate, adminGate, ...(need ? [requireScopes(deps, [need])] : [])];
  const read = guard(rules.scopes.read);
  const write = guard(rules.scopes.write);
  const remove = guard(rules.scopes.delete);
  /** Wrong methods: 405, but only to a caller who may see the route (a non-admin gets 404 from the gate). */
  const wrongMethod = (allowed: string[]) => [...guard(), methodNotAllowed(allowed)];

  /** The webhook named in the path, if the caller may see it; otherwise a 404 (also for another user's webhook). */
  async function visible(req: Request, res: Response): Promise<WebhookDoc | null> {
    const id = String(req.params.id ?? '');
    const hook = id.length > 0 && id.length <= MAX_ID_LENGTH ? await findWebhook(deps.store, id) : null;
    if (hook && hook.scope === scope && (scope === 'admin' || hook.ownerUserId === req.access!.userId)) return hook;
    sendError(res, 404, 'not_found', 'no such webhook');
    return null;
  }

  /** The parsed JSON body, or a 400 already sent. */
  function body<T>(req: Request, res: Response, schema: z.ZodType<T>): T | undefined {
    if (!req.is('application/json')) {
      sendError(res, 400, 'invalid_request', 'the body must be application/json');
      return undefined;
    }
    const parsed = schema.safeParse(req.body);
    if (parsed.success) return parsed.data;
    sendError(res, 400, 'invalid_request', describe(parsed.error));
    return undefined;
  }

  /** Refuses (400) a URL that delivery would refuse anyway. */
  function deliverable(res: Response, url: string | undefined): boolean {
    const problem = undeliverable(deps.outbound, url);
    if (problem) sendError(res, 400, 'invalid_request', problem);
    return problem === null;
  }

  function subscription(res: Response, events: string[]): string[] | undefined {
    const checked = checkSubscription(scope, events);
    if (checked.ok) return checked.events;
    sendError(res, 400, 'invalid_request', `events: ${checked.description}`);
    return undefined;
  }

  const actor = (req: Request) => ({ type: 'user' as const, userId: req.access!.userId, clientId: req.access!.clientId });
  const eventData = (w: WebhookDoc) => ({
    webhook_id: w._id,
    scope: w.scope,
    owner_user_id: w.ownerUserId,
    name: w.name,
    url_host: urlHost(w.url),
    events: w.events,
  });

  // GET list, POST create
  router.get(rules.base, read, async (req: Request, res: Response) => {
    const hooks = await listWebhooks(deps.store, scope, req.access!.userId);
    send(res, 200, { webhooks: hooks.map(webhookJson) });
  });

  router.post(rules.base, write, json, async (req: Request, res: Response) => {
    const input = body(req, res, CreateBody);
    if (!input || !deliverable(res, input.url)) return;
    const events = subscription(res, input.events);
    if (!events) return;
    // Bounded, so the dispatcher's per-event lookup stays small (FerretDB v1 scans).
    if ((await listWebhooks(deps.store, scope, req.access!.userId)).length >= rules.max) {
      return sendError(
        res,
        409,
        'limit_reached',
        `at most ${rules.max} ${scope === 'admin' ? 'admin webhooks per site' : 'webhooks per user'}; delete one first`,
      );
    }
    const { webhook, secret } = await createWebhook(deps.store, deps.kek, {
      scope,
      ownerUserId: req.access!.userId,
      name: input.name,
      url: input.url,
      events,
      secret: input.secret,
    });
    await deps.events.admin('webhook.create', eventData(webhook), actor(req));
    res.set('Location', `${deps.issuer}${rules.base}/${encodeURIComponent(webhook._id)}`);
    const { id, name, url, is_active, created_at } = webhookJson(webhook);
    send(res, 201, { webhook: { id, name, url, secret, events: webhook.events, is_active, created_at } });
  });
  router.all(rules.base, wrongMethod(['GET', 'POST']));

  // One webhook: GET, PATCH, DELETE
  const one = `${rules.base}/:id`;
  router.get(one, read, async (req: Request, res: Response) => {
    const hook = await visible(req, res);
    if (hook) send(res, 200, { webhook: webhookJson(hook) });
  });

  router.patch(one, write, json, async (req: Request, res: Response) => {
    const hook = await visible(req, res);
    if (!hook) return;
    const input = body(req, res, PatchBody);
    if (!input || !deliverable(res, input.url)) return;
    const changes: WebhookChanges = { name: input.name, url: input.url, secret: input.secret };
    if (input.is_active !== undefined) changes.isActive = input.is_active === true || input.is_active === 1;
    if (input.events !== undefined) {
      const events = subscription(res, input.events);
      if (!events) return;
      changes.events = events;
    }
    const { webhook, changed } = await updateWebhook(deps.store, deps.kek, hook, changes);
    if (changed.length) await deps.events.admin('webhook.update', { ...eventData(webhook), changed }, actor(req));
    send(res, 200, { webhook: webhookJson(webhook) });
  });

  router.delete(one, remove, async (req: Request, res: Response) => {
    const hook = await visible(req, res);
    if (!hook) return;
    if (await deleteWebhook(deps.store, hook._id)) {
      await deps.events.admin('webhook.delete', { webhook_id: hook._id, scope: hook.scope, owner_user_id: hook.ownerUserId, name: hook.name }, actor(req));
    }
    res.status(204).set('Cache-Control', 'no-store').end();
  });
  router.all(one, wrongMethod(['GET', 'PATCH', 'DELETE']));

  // POST test: a webhook.test delivery now, its outcome in the answer and the history
  router.post(`${one}/test`, write, async (req: Request, res: Response) => {
    const hook = await visible(req, res);
    if (!hook) return;
    if (!hook.isActive)
      return sendError(
        res,
        409,
        'webhook_inactive',
        'this webhook is inactive (is_active 0): it gets no deliveries, test pings included; set is_active to 1 first',
      );
    const deliveryId = randomUUID();
    const input: WebhookDeliveryInput = {
      deliveryId,
      webhookId: hook._id,
      event: TEST_EVENT,
      timestamp: unix(Date.now()),
      data: { webhook_id: hook._id, message: TEST_MESSAGE },
      timeoutMs: deps.deliveryTimeoutMs,
      test: true,
    };
    let outcome: DeliveryOutcome;
    try {
      outcome = await runTestPing(deps.flows, input, hook, deps.deliveryTimeoutMs + TEST_GRACE_MS);
    } catch {
      return sendError(res, 503, 'temporarily_unavailable', 'the test delivery could not be run now; try again');
    }
    if (outcome.state === 'skipped') return sendError(res, 404, 'not_found', 'no such webhook');
    send(res, 200, { delivery: testDeliveryJson(deliveryId, TEST_EVENT, outcome) });
  });
  router.all(`${one}/test`, wrongMethod(['POST']));

  // GET deliveries: newest first, at most HISTORY_LIMIT
  router.get(`${one}/deliveries`, read, async (req: Request, res: Response) => {
    const hook = await visible(req, res);
    if (!hook) return;
    const deliveries = await recentDeliveries(deps.store, hook._id);
    send(res, 200, { deliveries: deliveries.map(deliveryJson) });
  });
  router.all(`${one}/deliveries`, wrongMethod(['GET']));
  return router;
}
