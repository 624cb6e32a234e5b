// Webhook deliveries through the event pipeline, the
// WebhookDelivery workflow and a real local receiver that verifies every
// signature in constant time: headers and payload, success and failure
// records, a receiver that never answers (timeout, WEBHOOK_TIMEOUT_MS=1500
// here), an unreachable URL, a refused internal address, plain http to a
// public host refused, what a test ping shows of the answer, a redirect not
// followed, the 50-entry cap,
// wildcard and specific subscriptions, inactive webhooks, and secret rotation.
// The api runs on a database of its own; its own worker (useTestApi) writes
// the delivery history there.
import type { Client } from '@temporalio/client';
import { shownResponseBody } from '../../../activities/webhook-delivery.js';
import { recentDeliveries, storedHistory } from '../../../lib/store/webhook-history.js';
import { createWebhook, findWebhook, updateWebhook } from '../../../lib/store/webhooks.js';
import type { WebhookDoc } from '../../../lib/model/webhooks.js';
import { webhookOutbox } from '../../../lib/store/webhook-outbox.js';
import { deliveryIdFor } from '../../../lib/webhooks/event-pipeline.js';
import { webhookDeliveryWorkflowId } from '../../../lib/model/webhook-delivery.js';
import type { webhookDelivery } from '../../../workflows/webhook-delivery.js';
import { useTestApi, eventually } from '../../support/harness.js';
import { deliveryRuns, deliveryStarted } from '../../support/deliveries.js';
import { signatureMatches, startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';
import { startRawReceiver } from '../../support/raw-receiver.js';
import { testDatabase } from '../../support/database.js';

let receiver: WebhookReceiver;
let temporal: Client;
const USER = 'user-webhook-delivery';
const actor = { type: 'user' as const, userId: USER };

const api = useTestApi({ ...testDatabase('webhook_delivery').env, WEBHOOK_TIMEOUT_MS: '1500' });
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  // The api's own Temporal client (closed by api.stop()).
  temporal = api.deps.temporal.client;
});
afterAll(async () => {
  await receiver.close();
});

let n = 0;
/** A webhook on its own receiver path; the receiver learns its secret. */
async function hook(
  events: string[],
  opts: { userId?: string; url?: string; scope?: 'user' | 'admin' } = {},
): Promise<{ webhook: WebhookDoc; secret: string; path: string }> {
  const path = `/hook-${++n}`;
  const created = await createWebhook(api.deps.store, api.deps.kek, {
    scope: opts.scope ?? 'user',
    ownerUserId: opts.userId ?? USER,
    name: `hook ${n}`,
    url: opts.url ?? `${receiver.url}${path}`,
    events,
  });
  receiver.secrets.set(path, created.secret);
  return { ...created, path };
}

const deliveries = async (webhookId: string, count: number) => {
  let found: Awaited<ReturnType<typeof recentDeliveries>> = [];
  await eventually(async () => {
    found = await recentDeliveries(api.deps.store, webhookId);
    expect(found.length).toBeGreaterThanOrEqual(count);
  }, 30_000);
  return found;
};

describe('a delivery', () => {
  it('POSTs the signed raw JSON with the Keyflow headers and records a success', async () => {
    const h = await hook(['profile.updated']);
    await api.deps.events.user('profile.updated', USER, { user_id: USER, changed: ['name'] }, actor);
    const [record] = await deliveries(h.webhook._id, 1);
    const [got] = receiver.at(h.path);
    expect(got!.verified).toBe(true);
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['user-agent']).toMatch(/^Keyflow/);
    expect(got!.headers['x-keyflow-event']).toBe('profile.updated');
    expect(got!.headers['x-keyflow-delivery']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(got!.body).toEqual({ event: 'profile.updated', timestamp: expect.any(Number), data: { user_id: USER, changed: ['name'] } });
    expect(Math.abs(got!.body.timestamp - Date.now() / 1000)).toBeLessThan(60);
    expect(record).toMatchObject({ _id: got!.headers['x-keyflow-delivery'], event: 'profile.updated', success: true, statusCode: 200, error: null });
    expect(record!.responseBody).toBeUndefined();
    // The workflow is findable by its delivery id, and its history holds no secret.
    const handle = temporal.workflow.getHandle(webhookDeliveryWorkflowId(record!._id));
    expect(await handle.result()).toMatchObject({ state: 'success', statusCode: 200 });
    const history = JSON.stringify(await handle.fetchHistory(), (key, value) =>
      key === 'data' && typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : value,
    );
    expect(history).toContain(h.webhook._id);
    expect(history).not.toContain(h.secret);
  }, 60_000);

  it('sends the payload with a Content-Length: a receiver that reads exactly that many bytes gets all of it', async () => {
    const strict = await startRawReceiver();
    try {
      const h = await hook(['profile.updated'], { url: `${strict.url}/strict` });
      await api.deps.events.user('profile.updated', USER, { user_id: USER, changed: ['picture'] }, actor);
      const got = await strict.received.next(30_000, 'no delivery arrived');
      expect(got.headers['transfer-encoding']).toBeUndefined();
      expect(got.headers['content-length']).toBe(String(Buffer.byteLength(got.body)));
      expect(JSON.parse(got.body)).toMatchObject({ event: 'profile.updated', data: { user_id: USER, changed: ['picture'] } });
      expect(signatureMatches(h.secret, Buffer.from(got.body), got.headers['x-keyflow-signature'])).toBe(true);
    } finally {
      await strict.close();
    }
  }, 60_000);

  it('records a non-2xx answer as a failure with its status', async () => {
    const h = await hook(['app.created']);
    receiver.answers.set(h.path, { status: 503, body: 'down' });
    await api.deps.events.user('app.created', USER, { app_id: 'a1', name: 'A' }, actor);
    const [record] = await deliveries(h.webhook._id, 1);
    expect(record).toMatchObject({ success: false, statusCode: 503, error: null, event: 'app.created' });
    expect(receiver.at(h.path)[0]!.verified).toBe(true);
  }, 60_000);

  it('records a receiver that never answers as a timeout failure (after WEBHOOK_TIMEOUT_MS)', async () => {
    const h = await hook(['app.deleted']);
    receiver.answers.set(h.path, 'hang');
    await api.deps.events.user('app.deleted', USER, { app_id: 'a2', name: 'B' }, actor);
    const [record] = await deliveries(h.webhook._id, 1);
    expect(record).toMatchObject({ success: false, statusCode: null, error: 'timeout' });
    expect(record!.durationMs).toBeGreaterThanOrEqual(1400);
  }, 60_000);

  it('records an unreachable URL, a refused internal address and plain http to a public host as failures', async () => {
    const closed = await hook(['app.updated'], { url: 'http://127.0.0.1:9/closed' });
    const internal = await hook(['app.updated'], { url: 'http://10.255.255.1/internal' });
    // Stored before webhook URLs had to be https: the outbound client refuses it without connecting.
    const plain = await hook(['app.updated'], { url: 'http://hooks.example.com/plain' });
    await api.deps.events.user('app.updated', USER, { app_id: 'a3', name: 'C', changed: ['name'] }, actor);
    expect((await deliveries(closed.webhook._id, 1))[0]).toMatchObject({ success: false, statusCode: null, error: 'unreachable' });
    expect((await deliveries(internal.webhook._id, 1))[0]).toMatchObject({ success: false, statusCode: null, error: 'refused' });
    expect((await deliveries(plain.webhook._id, 1))[0]).toMatchObject({ success: false, statusCode: null, error: 'refused' });
  }, 60_000);

  it('does not follow a redirect: a 3xx is recorded as a failure and the target gets nothing', async () => {
    const h = await hook(['app.created']);
    receiver.answers.set(h.path, { status: 307, headers: { location: `${receiver.url}${h.path}-moved` } });
    await api.deps.events.user('app.created', USER, { app_id: 'r1', name: 'R' }, actor);
    expect((await deliveries(h.webhook._id, 1))[0]).toMatchObject({ success: false, statusCode: 307, error: null });
    expect(receiver.at(`${h.path}-moved`)).toEqual([]);
  }, 60_000);
});

describe('a webhook gone before its delivery', () => {
  it('deleted or switched off after the event: nothing is sent or recorded (state skipped)', async () => {
    const off = await hook(['*']);
    await updateWebhook(api.deps.store, api.deps.kek, off.webhook, { isActive: false });
    for (const webhookId of [off.webhook._id, 'a-deleted-webhook']) {
      const deliveryId = crypto.randomUUID();
      const result = await temporal.workflow.execute<typeof webhookDelivery>('webhookDelivery', {
        workflowId: webhookDeliveryWorkflowId(deliveryId),
        taskQueue: api.deps.config.temporal.taskQueue,
        args: [{ deliveryId, webhookId, event: 'app.created', timestamp: 1, data: {}, timeoutMs: 1500 }],
      });
      expect(result.state).toBe('skipped');
      expect(await recentDeliveries(api.deps.store, webhookId)).toEqual([]);
    }
    expect(receiver.at(off.path)).toEqual([]);
  }, 60_000);
});

describe('subscriptions', () => {
  it('delivers to "*" and to matching names only, to the event user\'s webhooks only, and not to inactive webhooks', async () => {
    const all = await hook(['*']);
    const apps = await hook(['app.created', 'app.deleted']);
    const profile = await hook(['profile.updated']);
    const inactive = await hook(['*']);
    await updateWebhook(api.deps.store, api.deps.kek, inactive.webhook, { isActive: false });
    const someoneElse = await hook(['*'], { userId: 'another-user' });
    const admin = await hook(['*'], { scope: 'admin', userId: 'an-admin' });
    const appCreated = crypto.randomUUID();
    const profileUpdated = crypto.randomUUID();
    await api.deps.events.user('app.created', USER, { app_id: 'x', name: 'X' }, actor, { eventId: appCreated });
    await api.deps.events.user('profile.updated', USER, { user_id: USER, changed: ['name'] }, actor, { eventId: profileUpdated });
    await deliveries(all.webhook._id, 2);
    await deliveries(apps.webhook._id, 1);
    await deliveries(profile.webhook._id, 1);
    // Every delivery of the two events is started by now: ask Temporal which were, rather than wait for strays.
    await api.deps.events.idle();
    const started = async (h: { webhook: WebhookDoc }) => [
      await deliveryStarted(temporal, appCreated, h.webhook._id),
      await deliveryStarted(temporal, profileUpdated, h.webhook._id),
    ];
    expect(await started(all)).toEqual([true, true]);
    expect(await started(apps)).toEqual([true, false]);
    expect(await started(profile)).toEqual([false, true]);
    for (const stray of [inactive, someoneElse, admin]) expect(await started(stray)).toEqual([false, false]);
    expect(
      receiver
        .at(all.path)
        .map((d) => d.body.event)
        .sort(),
    ).toEqual(['app.created', 'profile.updated']);
    expect(receiver.at(apps.path).map((d) => d.body.event)).toEqual(['app.created']);
    expect(receiver.at(profile.path).map((d) => d.body.event)).toEqual(['profile.updated']);
    expect(receiver.at(inactive.path)).toEqual([]);
    expect(receiver.at(someoneElse.path)).toEqual([]);
    expect(receiver.at(admin.path)).toEqual([]);
    // An admin event goes to admin webhooks (and the audit log), not to user webhooks.
    await api.deps.events.admin('admin.config.update', { changed: ['sudo_mode_ttl_minutes'] }, { type: 'operator' });
    await deliveries(admin.webhook._id, 1);
    expect(receiver.at(admin.path)[0]!.body.event).toBe('admin.config.update');
    expect(receiver.at(all.path)).toHaveLength(2);
  }, 60_000);

  it('signs with the new secret after a rotation', async () => {
    const h = await hook(['profile.updated']);
    await updateWebhook(api.deps.store, api.deps.kek, h.webhook, { secret: 'a-rotated-secret-of-enough-length' });
    await api.deps.events.user('profile.updated', USER, { user_id: USER, changed: ['name'] }, actor);
    await deliveries(h.webhook._id, 1);
    expect(receiver.at(h.path)[0]!.verified).toBe(false); // the receiver still holds the old one
    receiver.secrets.set(h.path, 'a-rotated-secret-of-enough-length');
    await api.deps.events.user('profile.updated', USER, { user_id: USER, changed: ['name'] }, actor);
    await deliveries(h.webhook._id, 2);
    expect(receiver.at(h.path)[1]!.verified).toBe(true);
  }, 60_000);
});

describe('history and durability', () => {
  it('keeps the newest 50 deliveries per webhook', async () => {
    const h = await hook(['profile.updated']);
    for (let i = 0; i < 55; i++) await api.deps.events.user('profile.updated', USER, { user_id: USER, changed: ['name'], i }, actor);
    await eventually(async () => expect(receiver.at(h.path)).toHaveLength(55), 60_000);
    await eventually(async () => {
      const kept = await recentDeliveries(api.deps.store, h.webhook._id, 100);
      expect(kept).toHaveLength(50);
      expect(await storedHistory(api.deps.store, h.webhook._id)).toEqual({ records: 50, deliveryIds: 50, head: true });
    }, 30_000);
  }, 120_000);

  it('an event left in the outbox is delivered by the sweep, once', async () => {
    const h = await hook(['app.created']);
    // As a process that crashed after making the event durable: in the outbox, never dispatched.
    const event = {
      _id: crypto.randomUUID(),
      name: 'app.created' as const,
      scope: 'user' as const,
      userId: USER,
      timestamp: Math.floor(Date.now() / 1000),
      data: { app_id: 'swept' },
      actor,
      createdAt: new Date(Date.now() - 60_000),
    };
    await webhookOutbox(api.deps.store).insertOne(event);
    expect(await api.deps.events.sweep()).toBeGreaterThanOrEqual(1);
    // A second dispatch of the same event (two processes sweeping) starts nothing new.
    await api.deps.events.dispatch(event);
    await deliveries(h.webhook._id, 1);
    // The delivery's workflow id ran once: the second dispatch was refused by Temporal, not delivered later.
    await eventually(async () => expect(await deliveryRuns(temporal, event._id, h.webhook._id)).toBeGreaterThanOrEqual(1), 30_000);
    expect(await deliveryRuns(temporal, event._id, h.webhook._id)).toBe(1);
    expect(receiver.at(h.path)).toHaveLength(1);
    expect(receiver.at(h.path)[0]!.headers['x-keyflow-delivery']).toBe(deliveryIdFor(event._id, h.webhook._id));
    expect(await webhookOutbox(api.deps.store).findOne({ _id: event._id })).toBeNull();
    expect(await findWebhook(api.deps.store, h.webhook._id)).not.toBeNull();
  }, 60_000);
});

describe("what a test ping shows of the receiver's answer", () => {
  const answer = (internal: boolean) => ({ body: Buffer.from(`pong ${'x'.repeat(5000)}`), internal });

  it("a public receiver: its body, cut at 4,096 characters (a test ping's result)", () => {
    expect(shownResponseBody(true, answer(false))).toBe(`pong ${'x'.repeat(4091)}`);
  });

  it('an internal receiver the allow-list admits: nothing, so the allow-list does not let users read internal services', () => {
    expect(shownResponseBody(true, answer(true))).toBeUndefined();
  });

  it('an event delivery: nothing, wherever the receiver is', () => {
    expect(shownResponseBody(false, answer(false))).toBeUndefined();
    expect(shownResponseBody(false, answer(true))).toBeUndefined();
  });
});
