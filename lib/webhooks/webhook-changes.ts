// Every change to webhooks, for the webhook API and the admin console alike:
// create (the signing secret returned once, stored sealed), update, delete
// and the test ping, each checked with the API's inputs (webhook-inputs.ts)
// and rules (webhook-rules.ts: the outbound allow-list, https, the caps).
//
// Every change emits an admin event (webhook.create / webhook.update /
// webhook.delete: audit log + admin webhooks) whose data carries ids, the name,
// the URL's host only (webhook URLs often carry a secret in their path or
// query) and never the signing secret.
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { ConflictError, NotFoundError, ValidationError } from '../model/errors.js';
import type { DeliveryOutcome, WebhookDeliveryInput } from '../model/webhook-delivery.js';
import { checkSubscription, TEST_EVENT, type AdminEvent, type EventActor, type WebhookScope } from '../model/webhook-events.js';
import type { FlowClient } from '../flows/flow-client.js';
import { runTestPing } from '../flows/webhook-delivery.js';
import type { OutboundPolicy } from '../runtime/http-client.js';
import type { Kek } from '../security/kek.js';
import type { Store } from '../store/db.js';
import { createWebhook, deleteWebhook, findWebhook, updateWebhook, type WebhookChanges } from '../store/webhooks.js';
import { WebhookSlotsFull } from '../store/webhook-slots.js';
import type { WebhookDoc } from '../model/webhooks.js';
import { CreateBody, describe, PatchBody } from './webhook-inputs.js';
import { MAX_ID_LENGTH, undeliverable, WEBHOOK_RULES } from './webhook-rules.js';
import { currentTimeMs } from '../runtime/clock.js';

export interface WebhookChangeDeps {
  store: Store;
  kek: Kek;
  events: { admin(name: AdminEvent, data: Record<string, unknown>, actor: EventActor): Promise<void> };
  /** Runs test pings. */
  flows: FlowClient;
  /** Its allow-list refuses at once a URL it does not admit for webhooks. */
  outbound: Pick<OutboundPolicy, 'allow'>;
  /** WEBHOOK_TIMEOUT_MS: how long a test ping's receiver has to answer. */
  deliveryTimeoutMs: number;
}

/** A 409 with the API's own error code for it. */
export class WebhookConflict extends ConflictError {
  constructor(
    readonly code: 'limit_reached' | 'webhook_inactive',
    message: string,
  ) {
    super(message);
  }
}

/** The test ping could not be run or did not end in time (the worker is away): try again later. */
export class TestPingUnavailable extends Error {
  constructor() {
    super('the test delivery could not be run now; try again');
  }
}

const TEST_MESSAGE = 'This is a test delivery from Keyflow.';
/** How much longer than the delivery timeout a test ping may take before the caller stops waiting. */
const TEST_GRACE_MS = 10_000;

/** The host (and port) of a webhook URL: what events and logs may show of it. */
export function urlHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

const eventData = (w: WebhookDoc) => ({
  webhook_id: w._id,
  scope: w.scope,
  owner_user_id: w.ownerUserId,
  name: w.name,
  url_host: urlHost(w.url),
  events: w.events,
});

/** `body` read with `schema`, or a ValidationError with the API's one-line description. */
function parsed<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (!result.success) throw new ValidationError([describe(result.error)]);
  return result.data;
}

/** Refuses a URL that delivery would refuse anyway. */
function deliverable(deps: WebhookChangeDeps, url: string | undefined): void {
  const problem = undeliverable(deps.outbound, url);
  if (problem) throw new ValidationError([problem]);
}

function subscription(scope: WebhookScope, events: string[]): string[] {
  const checked = checkSubscription(scope, events);
  if (!checked.ok) throw new ValidationError([`events: ${checked.description}`]);
  return checked.events;
}

/**
 * The webhook `id` of `scope` if `viewerId` may see it (user webhooks: only
 * their owner; admin webhooks: every admin), else a NotFoundError.
 */
export async function visibleWebhook(store: Store, scope: WebhookScope, viewerId: string, id: string): Promise<WebhookDoc> {
  const hook = id.length > 0 && id.length <= MAX_ID_LENGTH ? await findWebhook(store, id) : null;
  if (hook && hook.scope === scope && (scope === 'admin' || hook.ownerUserId === viewerId)) return hook;
  throw new NotFoundError('no such webhook');
}

/**
 * A new webhook of `scope` owned by `ownerId` from a create body, and its
 * signing secret (the only time it is seen). `inactive` creates it switched off.
 */
export async function addWebhook(
  deps: WebhookChangeDeps,
  scope: WebhookScope,
  ownerId: string,
  body: unknown,
  actor: EventActor,
  inactive = false,
): Promise<{ webhook: WebhookDoc; secret: string }> {
  const input = parsed(CreateBody, body);
  deliverable(deps, input.url);
  const events = subscription(scope, input.events);
  const { max } = WEBHOOK_RULES[scope];
  // Each webhook holds one of its owner's `max` slots: the limit holds under parallel creates.
  const created = await createWebhook(deps.store, deps.kek, {
    scope,
    ownerUserId: ownerId,
    name: input.name,
    url: input.url,
    events,
    secret: input.secret,
  }).catch((err: unknown) => {
    if (!(err instanceof WebhookSlotsFull)) throw err;
    throw new WebhookConflict('limit_reached', `at most ${max} ${scope === 'admin' ? 'admin webhooks per site' : 'webhooks per user'}; delete one first`);
  });
  const webhook = inactive ? (await updateWebhook(deps.store, deps.kek, created.webhook, { isActive: false })).webhook : created.webhook;
  await deps.events.admin('webhook.create', eventData(webhook), actor);
  return { webhook, secret: created.secret };
}

/** Changes a webhook from a patch body; an event only when something changed. */
export async function editWebhook(deps: WebhookChangeDeps, hook: WebhookDoc, body: unknown, actor: EventActor): Promise<WebhookDoc> {
  const input = parsed(PatchBody, body);
  deliverable(deps, input.url);
  const changes: WebhookChanges = { name: input.name, url: input.url, secret: input.secret };
  if (input.is_active !== undefined) changes.isActive = input.is_active === true || input.is_active === 1;
  if (input.events !== undefined) changes.events = subscription(hook.scope, input.events);
  const { webhook, changed } = await updateWebhook(deps.store, deps.kek, hook, changes);
  if (changed.length) await deps.events.admin('webhook.update', { ...eventData(webhook), changed }, actor);
  return webhook;
}

/** Deletes a webhook and its history; deleting one already gone emits nothing. */
export async function removeWebhook(deps: WebhookChangeDeps, hook: WebhookDoc, actor: EventActor): Promise<void> {
  if (await deleteWebhook(deps.store, hook._id)) {
    await deps.events.admin('webhook.delete', { webhook_id: hook._id, scope: hook.scope, owner_user_id: hook.ownerUserId, name: hook.name }, actor);
  }
}

export type TestOutcome = Exclude<DeliveryOutcome, { state: 'skipped' }>;

/** A webhook.test delivery now, whatever the webhook subscribes to; its outcome is also in the history. */
export async function sendTestPing(deps: WebhookChangeDeps, hook: WebhookDoc): Promise<{ deliveryId: string; outcome: TestOutcome }> {
  if (!hook.isActive) {
    throw new WebhookConflict(
      'webhook_inactive',
      'this webhook is inactive (is_active 0): it gets no deliveries, test pings included; set is_active to 1 first',
    );
  }
  const deliveryId = randomUUID();
  const input: WebhookDeliveryInput = {
    deliveryId,
    webhookId: hook._id,
    event: TEST_EVENT,
    timestamp: Math.floor(currentTimeMs() / 1000),
    data: { webhook_id: hook._id, message: TEST_MESSAGE },
    timeoutMs: deps.deliveryTimeoutMs,
    test: true,
  };
  let outcome: DeliveryOutcome;
  try {
    outcome = await runTestPing(deps.flows, input, hook, deps.deliveryTimeoutMs + TEST_GRACE_MS);
  } catch {
    throw new TestPingUnavailable();
  }
  if (outcome.state === 'skipped') throw new NotFoundError('no such webhook');
  return { deliveryId, outcome };
}
