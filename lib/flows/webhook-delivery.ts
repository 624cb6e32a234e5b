// The client of WebhookDelivery workflows (one per event and webhook, or per
// test ping): the only code that starts one or waits for its outcome.
import { webhookDeliveryWorkflowId, type DeliveryOutcome, type WebhookDeliveryInput } from '../model/webhook-delivery.js';
import type { webhookDelivery } from '../../workflows/webhook-delivery.js';
import { startFlow, type FlowClient } from './flow-client.js';

/** The webhook's owner, for the Temporal UI (admin webhooks: the admin who created it). */
type Owner = { ownerUserId: string | null };

const attributes = (hook: Owner) => ({ userId: hook.ownerUserId ?? undefined, state: 'sending' });

/**
 * Starts the delivery of an event to one webhook. A finished delivery is never
 * run again under the same id, so a second dispatch of the event (after a
 * crash) delivers nothing twice.
 */
export async function startWebhookDelivery(flows: FlowClient, input: WebhookDeliveryInput, hook: Owner): Promise<void> {
  await startFlow<typeof webhookDelivery>(flows, 'webhookDelivery', {
    workflowId: webhookDeliveryWorkflowId(input.deliveryId),
    args: [input],
    attributes: attributes(hook),
    options: { workflowIdReusePolicy: 'REJECT_DUPLICATE' },
  });
}

/**
 * Runs a test ping and waits for its outcome, at most `waitMs`: a stopped
 * worker must not hold the caller (the delivery still ends in the history).
 * Rejects when the ping could not be started or did not end in time.
 */
export async function runTestPing(flows: FlowClient, input: WebhookDeliveryInput, hook: Owner, waitMs: number): Promise<DeliveryOutcome> {
  const workflowId = webhookDeliveryWorkflowId(input.deliveryId);
  await startFlow<typeof webhookDelivery>(flows, 'webhookDelivery', { workflowId, args: [input], attributes: attributes(hook) });
  const handle = flows.client.workflow.getHandle<typeof webhookDelivery>(workflowId);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('deadline')), waitMs)));
  return Promise.race([handle.result(), deadline]).finally(() => clearTimeout(timer));
}
