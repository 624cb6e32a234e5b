// Webhooks in MongoDB: `webhooks`, one document per webhook, the signing
// secret sealed with the KEK (it must be recovered to sign, so it cannot be
// hashed). What they produce: the delivery history (webhook-history.ts), the
// pipeline's outbox and the audit log (webhook-outbox.ts, audit-log.ts).
// FerretDB v1: every document is inserted or replaced whole, and every lookup
// is by `_id`: an owner's webhooks are found through the slots each holds
// (webhook-slots.ts), never by a filter on the owner.
import { type WebhookDoc, WEBHOOK_LIMITS } from '../model/webhooks.js';
import type { WebhookScope } from '../model/webhook-events.js';
import { open, seal, type Kek } from '../security/kek.js';
import { newId, newSecret } from '../security/secrets.js';
import { insertManyIfAbsent, type Store } from './db.js';
import { deleteHistory } from './webhook-history.js';
import { claimSlot, freeSlot, markSlotHolder, markSlotHolders, settleSlotHolder, slotId, slottedWebhooks } from './webhook-slots.js';
import { currentDate } from '../runtime/clock.js';

export const webhooks = (store: Store) => store.webhooks;

const aad = (webhookId: string) => `webhook:${webhookId}`;

/** A generated signing secret: 32 random bytes, base64url. */
export const newWebhookSecret = (): string => newSecret();

export interface NewWebhook {
  scope: WebhookScope;
  ownerUserId: string | null;
  name: string;
  url: string;
  events: string[];
  secret?: string;
}

/** A new webhook's document (secret sealed, holding `slot`) and its clear secret. */
function newWebhook(kek: Kek, input: NewWebhook, id: string, slot: string): { webhook: WebhookDoc; secret: string } {
  const secret = input.secret ?? newWebhookSecret();
  const now = currentDate();
  const webhook: WebhookDoc = {
    _id: id,
    scope: input.scope,
    ownerUserId: input.ownerUserId,
    name: input.name,
    url: input.url,
    events: input.events,
    isActive: true,
    secret: seal(kek, Buffer.from(secret, 'utf8'), aad(id)),
    createdAt: now,
    updatedAt: now,
    slot,
  };
  return { webhook, secret };
}

/** A new webhook in a free slot of its owner; WebhookSlotsFull when the owner has as many as it may. */
export async function createWebhook(store: Store, kek: Kek, input: NewWebhook): Promise<{ webhook: WebhookDoc; secret: string }> {
  const id = newId();
  const slot = await claimSlot(store, input, id);
  const created = newWebhook(kek, input, id, slot);
  try {
    await webhooks(store).insertOne(created.webhook);
  } catch (err) {
    await freeSlot(store, slot, id);
    throw err;
  }
  await markSlotHolder(store, input);
  return created;
}

/**
 * createWebhook for many webhooks (bulk loads), under the ids and slot numbers
 * given (the caller keeps an owner's numbers distinct, below its limit): one
 * insertMany of slots, then one of webhooks; those already there are left as
 * they are, so an interrupted load can run again.
 */
export async function createWebhooks(store: Store, kek: Kek, inputs: (NewWebhook & { id: string; slot: number })[]): Promise<void> {
  for (const input of inputs) {
    if (!(input.slot >= 0 && input.slot < WEBHOOK_LIMITS[input.scope])) throw new RangeError(`webhook ${input.id}: slot ${input.slot} is not below the limit`);
  }
  const claimedAt = currentDate();
  await insertManyIfAbsent(
    store.webhookSlots,
    inputs.map((input) => ({ _id: slotId(input, input.slot), webhookId: input.id, claimedAt })),
  );
  await insertManyIfAbsent(
    webhooks(store),
    inputs.map((input) => newWebhook(kek, input, input.id, slotId(input, input.slot)).webhook),
  );
  await markSlotHolders(store, inputs);
}

export function findWebhook(store: Store, id: string): Promise<WebhookDoc | null> {
  return webhooks(store).findOne({ _id: id });
}

/** Webhooks of one scope (and owner, for user webhooks), oldest first: `_id` lookups only. */
export async function listWebhooks(store: Store, scope: WebhookScope, ownerUserId?: string): Promise<WebhookDoc[]> {
  const hooks = await slottedWebhooks(store, { scope, ownerUserId: ownerUserId ?? '' });
  return hooks.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a._id.localeCompare(b._id));
}

export interface WebhookChanges {
  name?: string;
  url?: string;
  events?: string[];
  isActive?: boolean;
  /** A new signing secret (rotation). */
  secret?: string;
}

/** Applies changes; returns the new document and the names of the fields that changed (`secret` included when rotated). */
export async function updateWebhook(store: Store, kek: Kek, webhook: WebhookDoc, changes: WebhookChanges): Promise<{ webhook: WebhookDoc; changed: string[] }> {
  const next: WebhookDoc = { ...webhook, updatedAt: currentDate() };
  const changed: string[] = [];
  const set = <K extends keyof WebhookDoc>(field: K, value: WebhookDoc[K], name: string) => {
    next[field] = value;
    changed.push(name);
  };
  if (changes.name !== undefined && changes.name !== webhook.name) set('name', changes.name, 'name');
  if (changes.url !== undefined && changes.url !== webhook.url) set('url', changes.url, 'url');
  if (changes.events !== undefined && JSON.stringify(changes.events) !== JSON.stringify(webhook.events)) set('events', changes.events, 'events');
  if (changes.isActive !== undefined && changes.isActive !== webhook.isActive) set('isActive', changes.isActive, 'is_active');
  if (changes.secret !== undefined) set('secret', seal(kek, Buffer.from(changes.secret, 'utf8'), aad(webhook._id)), 'secret');
  if (changed.length) await webhooks(store).replaceOne({ _id: webhook._id }, next);
  return { webhook: changed.length ? next : webhook, changed };
}

/** Deletes a webhook, then frees its slot and deletes its delivery history. */
export async function deleteWebhook(store: Store, id: string): Promise<boolean> {
  const hook = await findWebhook(store, id);
  if (!hook) return false;
  const { deletedCount } = await webhooks(store).deleteOne({ _id: id });
  if (!deletedCount) return false;
  if (hook.slot) await freeSlot(store, hook.slot, id);
  await settleSlotHolder(store, hook);
  await deleteHistory(store, id);
  return true;
}

/** The signing secret, unsealed (worker side, at delivery time). */
export function webhookSecret(kek: Kek, webhook: WebhookDoc): string {
  return open(kek, webhook.secret, aad(webhook._id), 'a webhook secret').toString('utf8');
}
