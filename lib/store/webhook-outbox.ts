// The outbox of the event pipeline (`webhook_events`): an event is inserted
// before its source answers and deleted once its deliveries are started; what
// a crashed process left behind is found by age and dispatched by the sweep.
import type { WebhookEventDoc } from '../model/webhook-events.js';
import { insertIfAbsent, type Store } from './db.js';
import { currentTimeMs } from '../runtime/clock.js';

export const webhookOutbox = (store: Store) => store.webhookOutbox;

/** Adds the event; an event already there (the same id emitted again) is left as it is. */
export async function addToOutbox(store: Store, event: WebhookEventDoc): Promise<void> {
  await insertIfAbsent(store.webhookOutbox, event);
}

/** The event's deliveries are started: it leaves the outbox. */
export async function removeFromOutbox(store: Store, eventId: string): Promise<void> {
  await store.webhookOutbox.deleteOne({ _id: eventId });
}

/** Events older than `olderThanMs`, oldest first (a scan on FerretDB v1: the outbox is near empty). */
export function staleOutboxEvents(store: Store, olderThanMs: number, limit: number): Promise<WebhookEventDoc[]> {
  return store.webhookOutbox
    .find({ createdAt: { $lt: new Date(currentTimeMs() - olderThanMs) } })
    .sort({ createdAt: 1 })
    .limit(limit)
    .toArray();
}
