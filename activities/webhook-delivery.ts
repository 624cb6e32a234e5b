// Activities of the WebhookDelivery workflow: the one HTTP attempt (through
// the outbound client: timeout, size cap, no redirects, internal addresses
// refused unless allow-listed for webhooks) and the record in the delivery
// history.
import { currentTimeMs } from '../lib/runtime/clock.js';
import { countDelivery } from '../lib/runtime/metrics.js';
import { RESPONSE_BODY_LIMIT, type DeliveryOutcome, type WebhookDeliveryInput } from '../lib/model/webhook-delivery.js';
import { TEST_EVENT } from '../lib/model/webhook-events.js';
import type { Kek } from '../lib/security/kek.js';
import { outboundRequest, OutboundError, type OutboundPolicy, type OutboundResponse } from '../lib/runtime/http-client.js';
import type { Store } from '../lib/store/db.js';
import { recordDelivery } from '../lib/store/webhook-history.js';
import { findWebhook, webhookSecret } from '../lib/store/webhooks.js';
import { webhookBody, webhookHeaders } from '../lib/webhooks/signing.js';

/**
 * The receiver's body a delivery shows its user and keeps (result and
 * history), or undefined. A test ping shows a public receiver's answer (the
 * documented ping result); never an internal receiver's, reached only because the
 * operator's allow-list admits it: the allow-list lets Keyflow call an
 * internal service, not let every user with a webhook read it.
 */
export function shownResponseBody(test: boolean, res: Pick<OutboundResponse, 'body' | 'internal'>): string | undefined {
  if (!test || res.internal) return undefined;
  return res.body.toString('utf8').slice(0, RESPONSE_BODY_LIMIT);
}

export function createWebhookDeliveryActivities(deps: { store: Store; kek: Kek; outbound: OutboundPolicy }) {
  return {
    async deliverWebhook(input: WebhookDeliveryInput): Promise<DeliveryOutcome> {
      const webhook = await findWebhook(deps.store, input.webhookId);
      const test = input.event === TEST_EVENT;
      if (!webhook || (!webhook.isActive && !test)) return { state: 'skipped', statusCode: null, error: null, durationMs: null, deliveredAt: currentTimeMs() };
      const body = webhookBody(input.event, input.timestamp, input.data);
      const started = currentTimeMs();
      const t0 = performance.now();
      try {
        const res = await outboundRequest({ ...deps.outbound, timeoutMs: input.timeoutMs }, 'webhooks', webhook.url, {
          method: 'POST',
          body,
          headers: webhookHeaders({ secret: webhookSecret(deps.kek, webhook), body, event: input.event, deliveryId: input.deliveryId }),
        });
        const responseBody = shownResponseBody(test, res);
        const delivered = res.status >= 200 && res.status < 300;
        // The lag runs from the event (input.timestamp: whole seconds) to the receiver's answer.
        countDelivery('webhook', delivered ? 'delivered' : 'failed', (currentTimeMs() - input.timestamp * 1000) / 1000);
        return {
          state: delivered ? 'success' : 'failure',
          statusCode: res.status,
          error: null,
          durationMs: res.durationMs,
          deliveredAt: started,
          ...(responseBody !== undefined ? { responseBody } : {}),
        };
      } catch (err) {
        if (!(err instanceof OutboundError)) throw err;
        countDelivery('webhook', 'failed');
        return { state: 'failure', statusCode: null, error: err.kind, durationMs: Math.round(performance.now() - t0), deliveredAt: started };
      }
    },

    async recordWebhookDelivery({
      input,
      outcome,
    }: {
      input: Pick<WebhookDeliveryInput, 'deliveryId' | 'webhookId' | 'event'>;
      outcome: DeliveryOutcome;
    }): Promise<void> {
      await recordDelivery(deps.store, {
        _id: input.deliveryId,
        webhookId: input.webhookId,
        event: input.event,
        success: outcome.state === 'success',
        statusCode: outcome.statusCode,
        error: outcome.error,
        deliveredAt: new Date(outcome.deliveredAt),
        durationMs: outcome.durationMs,
        ...(outcome.responseBody !== undefined ? { responseBody: outcome.responseBody } : {}),
      });
      // The workflow's one attempt was lost (the worker died, the activity timed out): nothing retries it.
      if (outcome.error === 'interrupted') countDelivery('webhook', 'gave_up');
    },
  };
}

export type WebhookDeliveryActivities = ReturnType<typeof createWebhookDeliveryActivities>;
