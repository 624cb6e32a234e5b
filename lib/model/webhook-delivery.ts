// What the WebhookDelivery workflow, its activities, its client (lib/flows),
// the delivery history and the management API share. Pure: imported by the
// workflow too.
import type { WebhookEventName } from './webhook-events.js';

export interface WebhookDeliveryInput {
  /** UUID, sent as X-Keyflow-Delivery. */
  deliveryId: string;
  webhookId: string;
  event: WebhookEventName;
  /** Unix seconds: when the event happened. */
  timestamp: number;
  data: Record<string, unknown>;
  /** How long the receiver has to answer (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** A test ping: the response body is kept in the record and the result. */
  test?: boolean;
}

export const webhookDeliveryWorkflowId = (deliveryId: string) => `webhook-delivery:${deliveryId}`;

/** Why a delivery has no 2xx status: a timeout, an unreachable or refused host, an interrupted delivery. */
export type DeliveryErrorKind = 'timeout' | 'unreachable' | 'refused' | 'invalid_url' | 'too_large' | 'interrupted';

export interface DeliveryOutcome {
  /** `skipped`: the webhook was deleted or switched off before its delivery; nothing is sent or recorded. */
  state: 'success' | 'failure' | 'skipped';
  statusCode: number | null;
  error: DeliveryErrorKind | null;
  durationMs: number | null;
  /** Epoch milliseconds. */
  deliveredAt: number;
  /** Test pings to a public receiver only: its answer, at most RESPONSE_BODY_LIMIT characters. */
  responseBody?: string;
}

/** Most characters of a receiver's answer a test ping shows and keeps. */
export const RESPONSE_BODY_LIMIT = 4096;

export interface WebhookDeliveryDoc {
  _id: string; // the delivery id (UUID)
  webhookId: string;
  event: WebhookEventName;
  success: boolean;
  statusCode: number | null;
  /** Why there is no 2xx status: a timeout, an unreachable or refused host, an interrupted delivery. */
  error: DeliveryErrorKind | null;
  deliveredAt: Date;
  durationMs: number | null;
  /** Only for test pings, capped at RESPONSE_BODY_LIMIT characters. */
  responseBody?: string;
}

/**
 * A delivery as the history stores it: `_id` is `<webhook id>:<seq>`, seq 0, 1,
 * 2, … per webhook in the order deliveries were recorded (store/webhook-history.ts).
 */
export interface WebhookDeliveryRecordDoc extends Omit<WebhookDeliveryDoc, '_id'> {
  _id: string;
  /** The delivery id (UUID, X-Keyflow-Delivery). */
  deliveryId: string;
}

/** Per webhook (`_id` the webhook id): a lower bound of the next free seq of its history. */
export interface WebhookDeliveryHeadDoc {
  _id: string;
  next: number;
}

/** Per recorded delivery (`_id` `<webhook id>:<delivery id>`): where its record is, for idempotent records. */
export interface WebhookDeliveryIdDoc {
  _id: string;
  webhookId: string;
  seq: number;
}
