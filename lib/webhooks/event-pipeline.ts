// The event pipeline: the one place a source reports what happened.
//
//   events.user(name, userId, data, actor)   → the user's own webhooks
//   events.admin(name, data, actor)          → admin webhooks (and the audit trail, for the
//                                              events the audit catalogue names alike)
//
// `emit` makes the event durable before it returns — one MongoDB insert into
// the outbox (`webhook_events`), plus the audit record of an admin event —
// and hands it to the dispatcher without waiting. The dispatcher, after the
// originating request has answered, finds the matching active webhooks, starts
// one WebhookDelivery workflow per webhook (id `webhook-delivery:<delivery id>`,
// the delivery id derived from event and webhook so a second dispatch of the
// same event is refused by Temporal, not delivered twice) and then deletes the
// outbox document. Events a crashed process left in the outbox are dispatched
// by the sweep (every SWEEP_INTERVAL_MS in the api, once at its start).
//
// Later sources (domains, admin user and team actions, invites, OAuth sources)
// call `events.user(...)` or `events.admin(...)` with their event name; the
// names and the `data` of each event are listed in docs/webhooks.md, "Events".
import pLimit from 'p-limit';
import { createHash } from 'node:crypto';
import type { WebhookDeliveryInput } from '../model/webhook-delivery.js';
import { actorPayload, subscribes, type AdminEvent, type EventActor, type UserEvent, type WebhookEventName } from '../model/webhook-events.js';
import type { FlowClient } from '../flows/flow-client.js';
import { startWebhookDelivery } from '../flows/webhook-delivery.js';
import type { Logger } from '../runtime/log.js';
import { newId } from '../security/secrets.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import { AUDIT_CATALOGUE, isAuditEvent, type AuditEventName } from '../model/audit-events.js';
import { subjectOfData } from '../audit/audit-subject.js';
import type { Store } from '../store/db.js';
import { addToOutbox, removeFromOutbox, staleOutboxEvents } from '../store/webhook-outbox.js';
import type { WebhookEventDoc } from '../model/webhook-events.js';
import { listWebhooks } from '../store/webhooks.js';
import type { WebhookDoc } from '../model/webhooks.js';
import { currentDate } from '../runtime/clock.js';

export interface EventPipelineDeps {
  store: Store;
  /** Where admin events the audit catalogue names alike are recorded. */
  audit: Pick<AuditTrail, 'record'>;
  /** Where the deliveries' workflows are started. */
  flows: FlowClient;
  log: Logger;
  /** The delivery timeout (WEBHOOK_TIMEOUT_MS), carried in each workflow's input. */
  deliveryTimeoutMs: number;
}

/**
 * `eventId`: for a source that may emit the same happening twice (an activity
 * retried after a crash between its write and its emit): the same id makes the
 * second emit deliver nothing twice (see deliveryIdFor). Default: a fresh id.
 */
export interface EmitOptions {
  eventId?: string;
}

export interface EventPipeline {
  /** A user event: durable when this resolves; delivered to the user's webhooks afterwards. */
  user(name: UserEvent, userId: string, data: Record<string, unknown>, actor: EventActor, options?: EmitOptions): Promise<void>;
  /** An admin event: durable (and in the audit trail, if the catalogue names it alike) when this resolves; delivered to admin webhooks afterwards. */
  admin(name: AdminEvent, data: Record<string, unknown>, actor: EventActor): Promise<void>;
  /** Starts the deliveries of one event now and waits for them to be started (CLI, tests, sweep). */
  dispatch(event: WebhookEventDoc): Promise<void>;
  /** Dispatches what is left in the outbox (events older than `olderThanMs`). */
  sweep(olderThanMs?: number): Promise<number>;
  /** Resolves once every dispatch begun so far has finished (CLI exit, graceful shutdown, tests). */
  idle(): Promise<void>;
  /** Starts the periodic sweep; returns its stop function. */
  startSweeping(): () => void;
}

/** How often the api looks for events a crashed process left in the outbox. */
export const SWEEP_INTERVAL_MS = 15_000;
/** An outbox event younger than this is still being dispatched by the process that wrote it. */
const SWEEP_GRACE_MS = 10_000;
/** Workflow starts in flight at once per process (the dev server's SQLite writes are the limit). */
const DISPATCH_CONCURRENCY = 16;
/** Outbox events one sweep dispatches. */
const SWEEP_BATCH = 500;

/** A UUID (version 8: custom) derived from `parts`: the same parts, the same id. */
export function derivedUuid(...parts: string[]): string {
  const b = createHash('sha256').update(parts.join('\n')).digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x80; // version 8 (RFC 9562: custom)
  b[8] = (b[8]! & 0x3f) | 0x80; // variant
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The delivery id (a UUID, `X-Keyflow-Delivery`) of one event to one webhook:
 * derived from both, so dispatching an event twice (after a crash) starts the
 * same workflow id and is refused by Temporal instead of delivering twice.
 */
export const deliveryIdFor = (eventId: string, webhookId: string): string => derivedUuid(eventId, webhookId);

/**
 * What the audit record of an admin event keeps of its payload: the keys the
 * catalogue lists. The rest is for webhooks only (invite.create's email: the
 * audit trail keeps none), left out without the recorder's warning.
 */
function auditedData(name: AuditEventName, data: Record<string, unknown>): Record<string, unknown> {
  const listed: Record<string, string> = AUDIT_CATALOGUE[name].data ?? {};
  return Object.fromEntries(Object.entries(data).filter(([key]) => Object.hasOwn(listed, key)));
}

export function createEventPipeline(deps: EventPipelineDeps): EventPipeline {
  const inFlight = new Set<Promise<void>>();
  /** Dispatches beyond DISPATCH_CONCURRENCY wait their turn (p-limit). */
  const slot = pLimit(DISPATCH_CONCURRENCY);

  async function matchingWebhooks(event: WebhookEventDoc): Promise<WebhookDoc[]> {
    const hooks = event.scope === 'user' ? await listWebhooks(deps.store, 'user', event.userId ?? '') : await listWebhooks(deps.store, 'admin');
    // Inactive webhooks get nothing (docs/webhooks.md: an event is not queued for later).
    return hooks.filter((h) => h.isActive && subscribes(h.events, event.name));
  }

  async function startDelivery(event: WebhookEventDoc, hook: WebhookDoc): Promise<void> {
    const input: WebhookDeliveryInput = {
      deliveryId: deliveryIdFor(event._id, hook._id),
      webhookId: hook._id,
      event: event.name,
      timestamp: event.timestamp,
      // An admin webhook is told who did it; a user webhook's events are its user's own.
      data: event.scope === 'admin' ? { ...event.data, actor: actorPayload(event.actor) } : event.data,
      timeoutMs: deps.deliveryTimeoutMs,
    };
    await startWebhookDelivery(deps.flows, input, hook);
  }

  async function dispatch(event: WebhookEventDoc): Promise<void> {
    const hooks = await matchingWebhooks(event);
    await Promise.all(hooks.map((hook) => slot(() => startDelivery(event, hook))));
    await removeFromOutbox(deps.store, event._id);
  }

  /** Dispatches in the background; a failure leaves the event in the outbox for the sweep. */
  function dispatchLater(event: WebhookEventDoc): void {
    const p = dispatch(event)
      .catch((err: Error) => deps.log.warn('webhook dispatch failed; the sweep retries it', { event: event.name, eventId: event._id, error: err.message }))
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }

  async function emit(doc: WebhookEventDoc): Promise<void> {
    const name = doc.name;
    await Promise.all([
      addToOutbox(deps.store, doc),
      doc.scope === 'admin' && isAuditEvent(name)
        ? deps.audit.record(name, { actor: doc.actor, subject: subjectOfData(doc.data), data: auditedData(name, doc.data) })
        : null,
    ]);
    dispatchLater(doc);
  }

  const newEvent = (
    name: WebhookEventName,
    scope: 'user' | 'admin',
    userId: string | null,
    data: Record<string, unknown>,
    actor: EventActor,
    eventId = newId(),
  ): WebhookEventDoc => {
    const now = currentDate();
    return { _id: eventId, name, scope, userId, timestamp: Math.floor(now.getTime() / 1000), data, actor, createdAt: now };
  };

  async function sweep(olderThanMs = SWEEP_GRACE_MS): Promise<number> {
    const stale = await staleOutboxEvents(deps.store, olderThanMs, SWEEP_BATCH);
    for (const event of stale) await dispatch(event);
    return stale.length;
  }

  return {
    user: (name, userId, data, actor, options) => emit(newEvent(name, 'user', userId, data, actor, options?.eventId)),
    admin: (name, data, actor) => emit(newEvent(name, 'admin', null, data, actor)),
    dispatch,
    sweep,
    idle: async () => {
      while (inFlight.size) await Promise.allSettled([...inFlight]);
    },
    startSweeping() {
      let busy = false;
      const tick = () => {
        if (busy) return;
        busy = true;
        sweep()
          .catch((err: Error) => deps.log.warn('webhook outbox sweep failed', { error: err.message }))
          .finally(() => (busy = false));
      };
      tick();
      const timer = setInterval(tick, SWEEP_INTERVAL_MS);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}
