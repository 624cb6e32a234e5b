// The upgrade from earlier versions' delivery history, one collection per
// webhook (`webhook_deliveries_<webhook id>`), to the one history of
// webhook-history.ts: each such collection is copied and then dropped.
// Idempotent, so every start runs it and a start interrupted half-way is
// finished by the next: a copy made again skips or replaces what is there
// (records keep their delivery ids), and a collection is dropped only once
// copied. Where none is left, it costs one listCollections.
import type { Store } from './db.js';
import { recordDeliveries } from './webhook-history.js';
import { findWebhook } from './webhooks.js';

/** Moves every per-webhook history into the one history; answers how many collections it moved. */
export async function moveLegacyHistories(store: Store): Promise<number> {
  const legacy = await store.legacyWebhookHistories();
  for (const collection of legacy) {
    // A history kept about HISTORY_LIMIT documents: read whole.
    const docs = await collection.find({}).toArray();
    const webhookId = docs[0]?.webhookId;
    // A deleted webhook's history goes with it.
    if (webhookId !== undefined && (await findWebhook(store, webhookId))) await recordDeliveries(store, webhookId, docs);
    // False, not an error, when another process starting at the same time dropped it first.
    await collection.drop();
  }
  return legacy.length;
}
