// The webhook delivery history in one collection, against a real FerretDB:
// concurrent records of one webhook all kept, a delivery recorded twice shown
// once (the second replacing the first), the newest 50 kept in order, a
// lagging head, and deletion.
import os from 'node:os';
import { loadKek } from '../../../lib/security/kek.js';
import { dropDatabase } from '../../../lib/store/db.js';
import { HISTORY_LIMIT, recentDeliveries, recordDelivery, storedHistory } from '../../../lib/store/webhook-history.js';
import type { WebhookDeliveryDoc } from '../../../lib/model/webhook-delivery.js';
import { createWebhook, deleteWebhook } from '../../../lib/store/webhooks.js';
import { openTestStore, testDatabase } from '../../support/database.js';

// A database of its own, dropped at the end: nothing of it is left to other tests.
const store = openTestStore(testDatabase('webhook_history'));
const kek = loadKek(Buffer.alloc(32, 7), os.tmpdir());
afterAll(async () => {
  await dropDatabase(store);
  await store.close();
});

async function newWebhookId(): Promise<string> {
  const { webhook } = await createWebhook(store, kek, { scope: 'user', ownerUserId: 'user-history', name: 'h', url: 'https://hooks.example/h', events: ['*'] });
  return webhook._id;
}

const T0 = Date.UTC(2030, 0, 1);
/** Delivery `i` of a webhook: its id and time follow `i`. */
const delivery = (webhookId: string, i: number, over: Partial<WebhookDeliveryDoc> = {}): WebhookDeliveryDoc => ({
  _id: `${webhookId.slice(0, 8)}-0000-4000-8000-${String(i).padStart(12, '0')}`,
  webhookId,
  event: 'profile.updated',
  success: true,
  statusCode: 200,
  error: null,
  deliveredAt: new Date(T0 + i * 1000),
  durationMs: i,
  ...over,
});
const ids = (docs: WebhookDeliveryDoc[]) => docs.map((d) => d._id);
/** Deliveries `from`..`to` of a webhook, newest first: what the history shows. */
const shown = (webhookId: string, from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => delivery(webhookId, to - k)._id);

describe('webhook delivery history', () => {
  it('keeps every one of 20 deliveries of one webhook recorded at once', async () => {
    const id = await newWebhookId();
    await Promise.all(Array.from({ length: 20 }, (_, i) => recordDelivery(store, delivery(id, i))));
    expect(ids(await recentDeliveries(store, id))).toEqual(shown(id, 0, 19));
    expect(await storedHistory(store, id)).toEqual({ records: 20, deliveryIds: 20, head: true });
  });

  it('shows a delivery recorded twice once, as recorded the second time', async () => {
    const id = await newWebhookId();
    await recordDelivery(store, delivery(id, 1));
    await recordDelivery(store, delivery(id, 2));
    await recordDelivery(store, delivery(id, 1, { success: false, statusCode: null, error: 'interrupted' }));
    // Twice at the same time too (an activity retried while its first attempt still runs).
    await Promise.all([recordDelivery(store, delivery(id, 3)), recordDelivery(store, delivery(id, 3))]);
    const history = await recentDeliveries(store, id);
    expect(ids(history)).toEqual(shown(id, 1, 3));
    expect(history[2]).toEqual(delivery(id, 1, { success: false, statusCode: null, error: 'interrupted' }));
    expect(await storedHistory(store, id)).toEqual({ records: 3, deliveryIds: 3, head: true });
  });

  it('keeps the newest 50, newest first, and a limit takes the newest of them', async () => {
    const id = await newWebhookId();
    for (let i = 0; i < 60; i++) await recordDelivery(store, delivery(id, i));
    expect(ids(await recentDeliveries(store, id))).toEqual(shown(id, 10, 59));
    expect(ids(await recentDeliveries(store, id, 3))).toEqual(shown(id, 57, 59));
    expect(await storedHistory(store, id)).toEqual({ records: HISTORY_LIMIT, deliveryIds: HISTORY_LIMIT, head: true });
  });

  it('loses nothing when the head lags behind the records', async () => {
    const id = await newWebhookId();
    for (let i = 0; i < 5; i++) await recordDelivery(store, delivery(id, i));
    // As when concurrent records' head updates (not atomic on FerretDB v1) left it behind.
    await store.webhookDeliveryHeads.deleteOne({ _id: id });
    expect(ids(await recentDeliveries(store, id))).toEqual(shown(id, 0, 4));
    for (let i = 5; i < 55; i++) await recordDelivery(store, delivery(id, i));
    expect(ids(await recentDeliveries(store, id))).toEqual(shown(id, 5, 54));
    expect(await storedHistory(store, id)).toEqual({ records: HISTORY_LIMIT, deliveryIds: HISTORY_LIMIT, head: true });
  });

  it('goes with its webhook', async () => {
    const id = await newWebhookId();
    for (let i = 0; i < 55; i++) await recordDelivery(store, delivery(id, i));
    expect(await deleteWebhook(store, id)).toBe(true);
    expect(await recentDeliveries(store, id)).toEqual([]);
    expect(await storedHistory(store, id)).toEqual({ records: 0, deliveryIds: 0, head: false });
  });
});
