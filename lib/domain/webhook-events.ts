// Webhook events (spec/webhooks.md): the two event lists, what a webhook may
// subscribe to, the payload a receiver gets and its signature. Pure: no I/O.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Events of a user's own webhooks. */
export const USER_EVENTS = ['app.created', 'app.updated', 'app.deleted', 'domain.added', 'domain.verified', 'domain.deleted', 'profile.updated'] as const;

/** Events of admin webhooks: the audit log's events. */
export const ADMIN_EVENTS = [
  'admin.config.update',
  'admin.user.update',
  'admin.user.delete',
  'admin.app.update',
  'admin.team.delete',
  'invite.create',
  'invite.revoke',
  'oauth_source.create',
  'oauth_source.update',
  'oauth_source.delete',
  'webhook.create',
  'webhook.update',
  'webhook.delete',
] as const;

/** The test ping: sent on request to one webhook, whatever it subscribes to. */
export const TEST_EVENT = 'webhook.test';

export type UserEvent = (typeof USER_EVENTS)[number];
export type AdminEvent = (typeof ADMIN_EVENTS)[number];
export type WebhookEventName = UserEvent | AdminEvent | typeof TEST_EVENT;
export type WebhookScope = 'user' | 'admin';

export const WILDCARD = '*';

const EVENTS_OF: Record<WebhookScope, readonly string[]> = { user: USER_EVENTS, admin: ADMIN_EVENTS };

export function isUserEvent(name: string): name is UserEvent {
  return (USER_EVENTS as readonly string[]).includes(name);
}

export function isAdminEvent(name: string): name is AdminEvent {
  return (ADMIN_EVENTS as readonly string[]).includes(name);
}

/**
 * A webhook's subscription, checked against its scope's list: `*` or known
 * event names, at least one, no duplicates kept. Returns the problem otherwise.
 */
export function checkSubscription(scope: WebhookScope, events: string[]): { ok: true; events: string[] } | { ok: false; description: string } {
  if (events.length === 0) return { ok: false, description: 'events must name at least one event, or "*"' };
  const unknown = events.filter((e) => e !== WILDCARD && !EVENTS_OF[scope].includes(e));
  if (unknown.length) return { ok: false, description: `unknown ${scope} event${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (allowed: *, ${EVENTS_OF[scope].join(', ')})` };
  return { ok: true, events: [...new Set(events)] };
}

/** Does a subscription take this event? */
export function subscribes(events: readonly string[], name: string): boolean {
  return events.includes(WILDCARD) || events.includes(name);
}

/** The raw request body a receiver gets: `{event, timestamp, data}` (timestamp in unix seconds). */
export function webhookBody(event: WebhookEventName, timestamp: number, data: Record<string, unknown>): string {
  return JSON.stringify({ event, timestamp, data });
}

/** `X-Keyflow-Signature`: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the webhook's secret. */
export function webhookSignature(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** What a receiver does (README "Receiving webhooks"): recompute and compare in constant time. */
export function verifyWebhookSignature(secret: string, body: string | Buffer, header: string | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(webhookSignature(secret, body));
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The delivery id (a UUID, `X-Keyflow-Delivery`) of one event to one webhook:
 * derived from both, so dispatching an event twice (after a crash) starts the
 * same workflow id and is refused by Temporal instead of delivering twice.
 */
export function deliveryIdFor(eventId: string, webhookId: string): string {
  const b = createHash('sha256').update(`${eventId}\n${webhookId}`).digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x80; // version 8 (RFC 9562: custom)
  b[8] = (b[8]! & 0x3f) | 0x80; // variant
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
