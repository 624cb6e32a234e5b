// What a webhook receiver gets: the raw body `{event, timestamp, data}`, its
// signature and the headers of the request. Pure: no I/O (the delivery
// activity unseals the secret and sends the request).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEventName } from '../model/webhook-events.js';

export const WEBHOOK_USER_AGENT = 'Keyflow-Webhooks/1.0 (+https://github.com/keyflow/keyflow)';

/** The raw request body a receiver gets: `{event, timestamp, data}` (timestamp in unix seconds). */
export function webhookBody(event: WebhookEventName, timestamp: number, data: Record<string, unknown>): string {
  return JSON.stringify({ event, timestamp, data });
}

/** `X-Keyflow-Signature`: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the webhook's secret. */
export function webhookSignature(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** What a receiver does (docs/webhooks.md, "Receiving webhooks"): recompute and compare in constant time. */
export function verifyWebhookSignature(secret: string, body: string | Buffer, header: string | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(webhookSignature(secret, body));
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The headers of one delivery: JSON, Keyflow's user agent, the body's signature, the event and the delivery id. */
export function webhookHeaders(delivery: { secret: string; body: string; event: WebhookEventName; deliveryId: string }): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
    'x-keyflow-signature': webhookSignature(delivery.secret, delivery.body),
    'x-keyflow-event': delivery.event,
    'x-keyflow-delivery': delivery.deliveryId,
  };
}
