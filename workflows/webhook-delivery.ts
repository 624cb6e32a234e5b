// WebhookDelivery (workflow id `webhook-delivery:<delivery id>`): one event to
// one webhook. One attempt (retry policy of one attempt, no retry), the
// receiver given `timeoutMs` (10 s by default) to answer; the outcome —
// success for 2xx, the status, the error kind for timeouts and unreachable
// hosts — is recorded in the webhook's delivery history, and returned (visible
// in the Temporal UI). The payload's `data` holds ids and names, never a
// secret; the signing secret is read and used by the activity only.
import { proxyActivities, proxyLocalActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { WebhookDeliveryActivities } from '../activities/webhook-delivery.js';
import type { DeliveryOutcome, WebhookDeliveryInput } from '../lib/model/webhook-delivery.js';
import { SearchAttributes } from '../lib/temporal/search-attributes.js';

// Recording is idempotent (keyed by the delivery id), so it may be retried.
const { recordWebhookDelivery } = proxyLocalActivities<WebhookDeliveryActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 10 },
});

export async function webhookDelivery(input: WebhookDeliveryInput): Promise<DeliveryOutcome> {
  // The only attempt: if the worker dies during it, the activity times out and the delivery is a failure.
  const { deliverWebhook } = proxyActivities<WebhookDeliveryActivities>({
    startToCloseTimeout: input.timeoutMs + 5_000,
    retry: { maximumAttempts: 1 },
  });
  let outcome: DeliveryOutcome;
  try {
    outcome = await deliverWebhook(input);
  } catch {
    outcome = { state: 'failure', statusCode: null, error: 'interrupted', durationMs: null, deliveredAt: Date.now() };
  }
  if (outcome.state !== 'skipped')
    await recordWebhookDelivery({ input: { deliveryId: input.deliveryId, webhookId: input.webhookId, event: input.event }, outcome });
  upsertSearchAttributes([{ key: SearchAttributes.state, value: outcome.state }]);
  return outcome;
}
