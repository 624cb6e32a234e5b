// The delivery history of every webhook, in three collections:
//   webhook_deliveries      one record per delivery, `_id` `<webhook id>:<seq>`,
//                           seq 0, 1, 2, … per webhook in the order its
//                           deliveries are recorded; the newest HISTORY_LIMIT seqs are kept
//   webhook_delivery_heads  per webhook (`_id` its id): `next`, a lower bound of its first free seq
//   webhook_delivery_ids    per kept delivery (`_id` `<webhook id>:<delivery id>`):
//                           its record's seq, so that recording a delivery
//                           again replaces its record instead of adding one
// Why: FerretDB v1 pushes only a lone `_id` equality down to SQLite (any other
// filter, `$in` included, scans the collection: here every webhook's
// history), and creates collections ever more slowly as they grow in number.
// So one collection holds every history and each operation below is a
// lookup, insert or delete by `_id`.
// Without atomic updates (FerretDB v1): a seq is claimed by the unique insert
// of its record itself; a taken seq sends the claim to the next one, so
// concurrent deliveries of one webhook never overwrite each other. The head
// is raised with `$max` after a claim, best-effort (not atomic there): a
// lagging head costs the next claim one more insert, and readers probe
// forward from it to the first free seq (the tip). A claim is tried only once
// the seq below it is taken, so the records of a webhook are the seqs
// [tip - HISTORY_LIMIT, tip): claiming seq s deletes record s - HISTORY_LIMIT.
import type { WebhookDeliveryDoc, WebhookDeliveryRecordDoc } from '../model/webhook-delivery.js';
import { insertIfAbsent, insertManyIfAbsent, isDuplicateKeyError, type Store } from './db.js';

export const HISTORY_LIMIT = 50;

/** Seqs one record tries at most: far more than concurrent deliveries of one webhook plus a lagging head. */
const MAX_CLAIMS = 1_000;

const recordKey = (webhookId: string, seq: number) => `${webhookId}:${seq}`;
const deliveryKey = (webhookId: string, deliveryId: string) => `${webhookId}:${deliveryId}`;

function asRecord({ _id, ...delivery }: WebhookDeliveryDoc, seq: number): WebhookDeliveryRecordDoc {
  return { ...delivery, _id: recordKey(delivery.webhookId, seq), deliveryId: _id };
}

function asDelivery({ deliveryId, ...record }: WebhookDeliveryRecordDoc): WebhookDeliveryDoc {
  return { ...record, _id: deliveryId };
}

/** The order the history is shown in: by `deliveredAt`, then id. */
function newestFirst(a: WebhookDeliveryDoc, b: WebhookDeliveryDoc): number {
  return b.deliveredAt.getTime() - a.deliveredAt.getTime() || (a._id < b._id ? 1 : a._id > b._id ? -1 : 0);
}

const findRecord = (store: Store, webhookId: string, seq: number) => store.webhookDeliveries.findOne({ _id: recordKey(webhookId, seq) });

async function headOf(store: Store, webhookId: string): Promise<number> {
  return (await store.webhookDeliveryHeads.findOne({ _id: webhookId }))?.next ?? 0;
}

/** The first free seq: the head, then forward past records whose claims have not raised it yet. */
async function tipOf(store: Store, webhookId: string): Promise<number> {
  let seq = await headOf(store, webhookId);
  while (await store.webhookDeliveries.findOne({ _id: recordKey(webhookId, seq) }, { projection: { _id: 1 } })) seq++;
  return seq;
}

async function raiseHead(store: Store, webhookId: string, next: number): Promise<void> {
  const raise = () => store.webhookDeliveryHeads.updateOne({ _id: webhookId }, { $max: { next } }, { upsert: true });
  try {
    await raise();
  } catch (err) {
    // Two first records of a webhook both inserted its head: the loser's upsert is now an update.
    if (!isDuplicateKeyError(err)) throw err;
    await raise();
  }
}

/** The kept records below `tip`, in seq order: one findOne each, in parallel (an `$in` would scan). */
async function windowBelow(store: Store, webhookId: string, tip: number): Promise<WebhookDeliveryRecordDoc[]> {
  const seqs = Array.from({ length: Math.min(tip, HISTORY_LIMIT) }, (_, k) => tip - Math.min(tip, HISTORY_LIMIT) + k);
  const records = await Promise.all(seqs.map((seq) => findRecord(store, webhookId, seq)));
  return records.filter((r) => r !== null);
}

/**
 * Puts `doc` at the first seq from `from` that is free (inserted) or already
 * holds this delivery, written by a concurrent record of it (replaced).
 */
async function place(store: Store, doc: WebhookDeliveryDoc, from: number): Promise<{ seq: number; inserted: boolean }> {
  for (let seq = from; seq < from + MAX_CLAIMS; seq++) {
    const record = asRecord(doc, seq);
    if (await insertIfAbsent(store.webhookDeliveries, record)) return { seq, inserted: true };
    const taken = await findRecord(store, doc.webhookId, seq);
    if (taken?.deliveryId === doc._id) {
      await store.webhookDeliveries.replaceOne({ _id: record._id }, record);
      return { seq, inserted: false };
    }
  }
  throw new Error(`webhook ${doc.webhookId}: no free delivery history seq after ${MAX_CLAIMS} tries`);
}

/**
 * Deletes a record, then its delivery-id document: a crash in between leaves
 * only that small document, whose seq a later record of the delivery finds below the window.
 */
async function removeRecord(store: Store, record: WebhookDeliveryRecordDoc): Promise<void> {
  await store.webhookDeliveries.deleteOne({ _id: record._id });
  await store.webhookDeliveryIds.deleteOne({ _id: deliveryKey(record.webhookId, record.deliveryId) });
}

/**
 * Records one delivery, idempotent on its delivery id: recorded again (an
 * activity retried), it replaces its record. A new record pushes the oldest
 * of the newest HISTORY_LIMIT out.
 */
export async function recordDelivery(store: Store, doc: WebhookDeliveryDoc): Promise<void> {
  const key = deliveryKey(doc.webhookId, doc._id);
  let from = await headOf(store, doc.webhookId);
  // The delivery-id document goes first, with the seq about to be tried: a
  // record that crashed after its insert is found again from there.
  if (!(await insertIfAbsent(store.webhookDeliveryIds, { _id: key, webhookId: doc.webhookId, seq: from }))) {
    const known = await store.webhookDeliveryIds.findOne({ _id: key });
    // Gone or below the window: trimmed since (or the webhook deleted), and it stays so.
    if (!known || known.seq < (await tipOf(store, doc.webhookId)) - HISTORY_LIMIT) return;
    from = known.seq;
  }
  const { seq, inserted } = await place(store, doc, from);
  if (seq !== from) await store.webhookDeliveryIds.updateOne({ _id: key }, { $set: { seq } });
  if (!inserted) return;
  await raiseHead(store, doc.webhookId, seq + 1);
  const pushedOut = seq >= HISTORY_LIMIT ? await findRecord(store, doc.webhookId, seq - HISTORY_LIMIT) : null;
  if (pushedOut) await removeRecord(store, pushedOut);
}

/**
 * recordDelivery for several deliveries of one webhook (bulk loads, the
 * upgrade). A webhook without a history gets the newest HISTORY_LIMIT at
 * seqs 0, 1, … in one insertMany per collection; the same call again skips
 * what is there, so an interrupted load just runs again. A webhook with a
 * history of its own gets them one by one.
 */
export async function recordDeliveries(store: Store, webhookId: string, docs: WebhookDeliveryDoc[]): Promise<void> {
  const kept = [...docs].sort((a, b) => newestFirst(b, a)).slice(-HISTORY_LIMIT);
  if (kept.length === 0) return;
  const fresh = (await tipOf(store, webhookId)) === 0 || (await findRecord(store, webhookId, 0))?.deliveryId === kept[0]!._id;
  if (!fresh) {
    for (const doc of kept) await recordDelivery(store, doc);
    return;
  }
  await insertManyIfAbsent(
    store.webhookDeliveryIds,
    kept.map((doc, seq) => ({ _id: deliveryKey(webhookId, doc._id), webhookId, seq })),
  );
  await insertManyIfAbsent(
    store.webhookDeliveries,
    kept.map((doc, seq) => asRecord(doc, seq)),
  );
  await raiseHead(store, webhookId, kept.length);
}

/** The newest deliveries of a webhook, newest first (at most HISTORY_LIMIT). */
export async function recentDeliveries(store: Store, webhookId: string, limit = HISTORY_LIMIT): Promise<WebhookDeliveryDoc[]> {
  const records = await windowBelow(store, webhookId, await tipOf(store, webhookId));
  return records.map(asDelivery).sort(newestFirst).slice(0, Math.min(limit, HISTORY_LIMIT));
}

/**
 * Deletes a webhook's history: the kept records with their delivery ids, the
 * records just below them that a process dying before its trim left (down to
 * the first free seq), then the head.
 */
export async function deleteHistory(store: Store, webhookId: string): Promise<void> {
  const tip = await tipOf(store, webhookId);
  await Promise.all((await windowBelow(store, webhookId, tip)).map((record) => removeRecord(store, record)));
  for (let seq = tip - HISTORY_LIMIT - 1; seq >= 0; seq--) {
    const record = await findRecord(store, webhookId, seq);
    if (!record) break;
    await removeRecord(store, record);
  }
  await store.webhookDeliveryHeads.deleteOne({ _id: webhookId });
}

/** What a webhook's history holds in storage, found by scanning: for checks, never a hot path. */
export async function storedHistory(store: Store, webhookId: string): Promise<{ records: number; deliveryIds: number; head: boolean }> {
  return {
    records: await store.webhookDeliveries.countDocuments({ webhookId }),
    deliveryIds: await store.webhookDeliveryIds.countDocuments({ webhookId }),
    head: (await store.webhookDeliveryHeads.findOne({ _id: webhookId })) !== null,
  };
}
