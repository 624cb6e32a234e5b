// WebhookDelivery: one attempt of deliverWebhook, the receiver given
// timeoutMs (+5 s for the activity), its outcome recorded by a local activity
// unless skipped, and returned; a failed attempt is the outcome `interrupted`.
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { DeliveryOutcome } from '../../../lib/model/webhook-delivery.js';
import { webhookDelivery } from '../../../workflows/webhook-delivery.js';
import { flowState, startWorkflowWorker, type WorkflowWorker, recordHistory } from '../../support/workflow-env.js';

let w: WorkflowWorker;
/** What deliverWebhook answers per delivery id (absent: it throws, as when the worker dies mid-attempt). */
const answers = new Map<string, DeliveryOutcome>();

beforeAll(async () => {
  w = await startWorkflowWorker('webhook', {
    async deliverWebhook(input: { deliveryId: string }) {
      const outcome = answers.get(input.deliveryId);
      if (!outcome) throw ApplicationFailure.create({ message: 'attempt lost' });
      return outcome;
    },
    async recordWebhookDelivery() {},
  });
});
afterAll(() => w?.stop());

function input() {
  return {
    deliveryId: randomUUID(),
    webhookId: 'hook-1',
    event: 'profile.updated' as const,
    timestamp: 1_700_000_000,
    data: { user_id: 'u1', fields: ['name'] },
    timeoutMs: 2_500,
  };
}

async function deliver(outcome: DeliveryOutcome | null) {
  const i = input();
  if (outcome) answers.set(i.deliveryId, outcome);
  const handle = await w.start(webhookDelivery, i, `webhook-delivery:${i.deliveryId}`);
  const result = await handle.result();
  return { i, result, handle, calls: w.callsOf(handle.workflowId) };
}

it('one attempt with the receiver timeout, the outcome recorded (locally) and returned', async () => {
  const success: DeliveryOutcome = { state: 'success', statusCode: 204, error: null, durationMs: 12, deliveredAt: 1_700_000_000_500 };
  const { i, result, handle, calls } = await deliver(success);
  expect(result).toEqual(success);
  expect(calls.map((c) => [c.name, c.arg, c.attempt, c.local])).toEqual([
    ['deliverWebhook', i, 1, false],
    ['recordWebhookDelivery', { input: { deliveryId: i.deliveryId, webhookId: 'hook-1', event: 'profile.updated' }, outcome: success }, 1, true],
  ]);
  expect(calls[0]!.startToCloseTimeoutMs).toBe(i.timeoutMs + 5_000);
  expect(await flowState(handle)).toBe('success');
  await recordHistory(handle, 'webhook-delivery-delivered');
});

it('a failure answer (status or error kind) is recorded as it is', async () => {
  const failure: DeliveryOutcome = { state: 'failure', statusCode: null, error: 'timeout', durationMs: 2_500, deliveredAt: 1_700_000_000_500 };
  const { result, handle, calls } = await deliver(failure);
  expect(result).toEqual(failure);
  expect(calls.map((c) => c.name)).toEqual(['deliverWebhook', 'recordWebhookDelivery']);
  expect(await flowState(handle)).toBe('failure');
  await recordHistory(handle, 'webhook-delivery-refused-by-receiver');
});

it('a webhook deleted or switched off before its delivery is skipped: nothing recorded', async () => {
  const skipped: DeliveryOutcome = { state: 'skipped', statusCode: null, error: null, durationMs: null, deliveredAt: 1_700_000_000_500 };
  const { result, handle, calls } = await deliver(skipped);
  expect(result).toEqual(skipped);
  expect(calls.map((c) => c.name)).toEqual(['deliverWebhook']);
  expect(await flowState(handle)).toBe('skipped');
  await recordHistory(handle, 'webhook-delivery-skipped');
});

it('an attempt that fails is not retried: the delivery is a failure, `interrupted`', async () => {
  const { result, handle, calls } = await deliver(null);
  const interrupted = { state: 'failure', statusCode: null, error: 'interrupted', durationMs: null, deliveredAt: expect.any(Number) };
  expect(result).toEqual(interrupted);
  expect(calls.map((c) => [c.name, c.attempt])).toEqual([
    ['deliverWebhook', 1],
    ['recordWebhookDelivery', 1],
  ]);
  expect(calls[1]!.arg).toEqual(expect.objectContaining({ outcome: interrupted }));
  expect(await flowState(handle)).toBe('failure');
  await recordHistory(handle, 'webhook-delivery-attempt-lost');
});
