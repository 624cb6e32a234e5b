// Which webhook deliveries were started, as Temporal records them: for tests
// that check that a delivery did NOT happen. Sleeping "long enough" for a
// stray delivery to arrive proves little and costs seconds; a delivery is a
// WebhookDelivery workflow, started (or refused as a duplicate) before the
// dispatch of its event returns, so once the api's pipeline is idle Temporal
// already knows every delivery that will ever be made of what was emitted.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { webhookDeliveryWorkflowId } from '../../lib/model/webhook-delivery.js';
import { deliveryIdFor } from '../../lib/webhooks/event-pipeline.js';
import { eventually } from './harness.js';

/**
 * Whether the delivery of event `eventId` to `webhookId` was started: its
 * workflow id is derived from both, and Temporal answers by id at once (no
 * list to catch up with).
 */
export async function deliveryStarted(client: Client, eventId: string, webhookId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(webhookDeliveryWorkflowId(deliveryIdFor(eventId, webhookId))).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** How many runs the delivery of `eventId` to `webhookId` has had (Temporal's list: every run of the workflow id). */
export async function deliveryRuns(client: Client, eventId: string, webhookId: string): Promise<number> {
  const id = webhookDeliveryWorkflowId(deliveryIdFor(eventId, webhookId));
  return (await client.workflow.count(`WorkflowId = '${id}'`)).count;
}

/** How many deliveries were started to the webhooks of `ownerUserId` (Temporal's list, by the KeyflowUserId search attribute). */
export async function deliveriesStartedFor(client: Client, ownerUserId: string): Promise<number> {
  return (await client.workflow.count(`WorkflowType = 'webhookDelivery' AND KeyflowUserId = '${ownerUserId}'`)).count;
}

/**
 * Checks that exactly `expected` deliveries were started to the webhooks of
 * `ownerUserId`. Temporal's list lags its starts by moments, so the count is
 * awaited up to `expected`; a stray delivery is one the same dispatches (or
 * earlier ones) started, which the list has by then.
 */
export async function expectDeliveriesStartedFor(client: Client, ownerUserId: string, expected: number): Promise<void> {
  await eventually(async () => expect(await deliveriesStartedFor(client, ownerUserId)).toBeGreaterThanOrEqual(expected), 30_000);
  expect(await deliveriesStartedFor(client, ownerUserId)).toBe(expected);
}
