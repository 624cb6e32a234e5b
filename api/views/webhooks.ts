// The webhook API's JSON answers: a webhook (never its secret), a delivery, a
// test ping's delivery.
import type { DeliveryOutcome, WebhookDeliveryDoc } from '../../lib/model/webhook-delivery.js';
import type { WebhookDoc } from '../../lib/model/webhooks.js';

export const unix = (d: Date | number) => Math.floor((typeof d === 'number' ? d : d.getTime()) / 1000);

/** A webhook as the API shows it: never its secret. */
export function webhookJson(w: WebhookDoc) {
  return { id: w._id, name: w.name, url: w.url, events: w.events, is_active: w.isActive ? 1 : 0, created_at: unix(w.createdAt), updated_at: unix(w.updatedAt) };
}

export function deliveryJson(d: WebhookDeliveryDoc) {
  return {
    id: d._id,
    event: d.event,
    success: d.success,
    status_code: d.statusCode ?? null,
    error: d.error ?? null,
    duration_ms: d.durationMs ?? null,
    delivered_at: unix(d.deliveredAt),
    ...(d.responseBody !== undefined ? { response_body: d.responseBody } : {}),
  };
}

/** A test ping's delivery, as its answer shows it. */
export function testDeliveryJson(deliveryId: string, event: string, outcome: Exclude<DeliveryOutcome, { state: 'skipped' }>) {
  return {
    id: deliveryId,
    event,
    success: outcome.state === 'success',
    status_code: outcome.statusCode,
    error: outcome.error,
    duration_ms: outcome.durationMs,
    delivered_at: unix(outcome.deliveredAt),
    response_body: outcome.responseBody ?? null,
  };
}
