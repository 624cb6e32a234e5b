// Finding an owner's webhooks with `_id` lookups: slots.
//
// FerretDB v1 looks documents up through an index only for a filter that is
// exactly `{_id: value}`; `webhooks.find({scope, ownerUserId})` reads every
// webhook, and the dispatcher runs it for every user event. An owner (a user,
// or the site for admin webhooks) has at most WEBHOOK_LIMITS[scope] webhooks,
// so it has that many numbered slots in `webhook_slots`, `_id`
// `<scope>:<owner id or 'site'>:<n>`, each naming the webhook that holds it:
// - a webhook is created by first claiming a free slot with a unique insert,
//   which is also what keeps the limit under parallel creates (a count and an
//   insert would let several pass), and then inserting the webhook;
// - reading an owner's webhooks is one `_id` lookup per slot, then one per
//   webhook named; a slot is trusted only while its webhook exists and belongs
//   to the owner, so a slot left by a crash between the two inserts, or by a
//   deletion half-done, is ignored;
// - such a slot is taken over by a later create once it is older than
//   CLAIM_GRACE_MS (until then it may be a create between its two inserts);
// - a webhook's slot is freed after the webhook is deleted. Freeing and taking
//   over both delete a slot still naming a given webhook: whoever claims
//   that (slot, webhook) pair once (single-use.ts) deletes it, so a slot
//   someone else has claimed meanwhile is never deleted by a late reader.
// Most users have no webhook, and every one of their events would still read
// all their slots; so an owner with webhooks also has a holder document
// (`<scope>:<owner>:holder`, holders.ts): an owner without one has no
// webhook, in one lookup.
import { WEBHOOK_LIMITS, type WebhookDoc, type WebhookSlotDoc } from '../model/webhooks.js';
import type { WebhookScope } from '../model/webhook-events.js';
import { insertIfAbsent, insertManyIfAbsent, type Store } from './db.js';
import { isHolder, markHolder, settleHolder } from './holders.js';
import { claimOnce } from './single-use.js';
import { currentDate, currentTimeMs } from '../runtime/clock.js';

/** How long a slot whose webhook does not exist yet is left to its creator. */
export const CLAIM_GRACE_MS = 60_000;
/** How long the claim to free a (slot, webhook) pair is remembered: far longer than any read it guards against. */
const FREE_CLAIM_TTL_MS = 24 * 3600_000;

/** Every webhook slot of the owner is taken by a webhook. */
export class WebhookSlotsFull extends Error {
  constructor(readonly scope: WebhookScope) {
    super(`every ${scope} webhook slot of this owner is taken`);
  }
}

type Owner = Pick<WebhookDoc, 'scope' | 'ownerUserId'>;

/** Admin webhooks belong to the site, whoever created them. */
const ownerKey = (o: Owner) => (o.scope === 'admin' ? 'site' : (o.ownerUserId ?? ''));

export const slotId = (owner: Owner, n: number) => `${owner.scope}:${ownerKey(owner)}:${n}`;

const slotIds = (owner: Owner) => Array.from({ length: WEBHOOK_LIMITS[owner.scope] }, (_, n) => slotId(owner, n));

/** Whether the webhook is there and belongs to the owner whose slot names it. */
const agrees = (owner: Owner, hook: WebhookDoc | null): hook is WebhookDoc => hook !== null && hook.scope === owner.scope && ownerKey(hook) === ownerKey(owner);

/** The owner's slots, one `_id` lookup each, in parallel (null: free). */
const readSlots = (store: Store, owner: Owner) => Promise.all(slotIds(owner).map((_id) => store.webhookSlots.findOne({ _id })));

const holderId = (owner: Owner) => `${owner.scope}:${ownerKey(owner)}:holder`;
const slotHolder = (owner: Owner): WebhookSlotDoc => ({ _id: holderId(owner), webhookId: '', claimedAt: currentDate() });

/** Records that the owner has a webhook (after it was inserted). */
export async function markSlotHolder(store: Store, owner: Owner): Promise<void> {
  await markHolder(store.webhookSlots, slotHolder(owner));
}

/** markSlotHolder for many owners at once (bulk loads): one insertMany. */
export async function markSlotHolders(store: Store, owners: Owner[]): Promise<void> {
  const ids = [...new Set(owners.map(holderId))];
  await insertManyIfAbsent(
    store.webhookSlots,
    ids.map((_id) => ({ _id, webhookId: '', claimedAt: currentDate() })),
  );
}

/** After a webhook of the owner went: the holder goes, and comes back if any slot is still taken. */
export async function settleSlotHolder(store: Store, owner: Owner): Promise<void> {
  await settleHolder(store.webhookSlots, slotHolder(owner), async () => (await readSlots(store, owner)).some((slot) => slot !== null));
}

/** The owner's webhooks: those its slots name that exist and agree, each once, in no particular order. */
export async function slottedWebhooks(store: Store, owner: Owner): Promise<WebhookDoc[]> {
  if (!(await isHolder(store.webhookSlots, holderId(owner)))) return [];
  const named = [...new Set((await readSlots(store, owner)).flatMap((s) => (s ? [s.webhookId] : [])))];
  const hooks = await Promise.all(named.map((_id) => store.webhooks.findOne({ _id })));
  return hooks.filter((h) => agrees(owner, h));
}

/** Deletes the slot if it still names the webhook, once however many try (see above); whether this caller did. */
async function freeIfNaming(store: Store, slot: Pick<WebhookSlotDoc, '_id' | 'webhookId'>): Promise<boolean> {
  if (!(await claimOnce(store, `webhook-slot-free:${slot._id}:${slot.webhookId}`, FREE_CLAIM_TTL_MS))) return false;
  await store.webhookSlots.deleteOne({ _id: slot._id });
  return true;
}

/** A slot whose webhook is missing (or not the owner's) and old enough not to be a create in progress. */
async function abandoned(store: Store, owner: Owner, slot: WebhookSlotDoc): Promise<boolean> {
  if (currentTimeMs() - slot.claimedAt.getTime() < CLAIM_GRACE_MS) return false;
  return !agrees(owner, await store.webhooks.findOne({ _id: slot.webhookId }));
}

/**
 * Claims the owner's first free slot for `webhookId` (to be inserted next),
 * taking over an abandoned one; its `_id`, or WebhookSlotsFull.
 */
export async function claimSlot(store: Store, owner: Owner, webhookId: string): Promise<string> {
  const ids = slotIds(owner);
  const slots = await readSlots(store, owner);
  for (const [n, slot] of slots.entries()) {
    if (slot && !(await abandoned(store, owner, slot))) continue;
    if (slot) await freeIfNaming(store, slot);
    // Lost to a parallel create (or to another taking over): try the next one.
    if (await insertIfAbsent(store.webhookSlots, { _id: ids[n]!, webhookId, claimedAt: currentDate() })) return ids[n]!;
  }
  throw new WebhookSlotsFull(owner.scope);
}

/** Frees the slot `slot` if it still names `webhookId` (after the webhook was deleted, or its insert failed). */
export async function freeSlot(store: Store, slot: string, webhookId: string): Promise<void> {
  const current = await store.webhookSlots.findOne({ _id: slot });
  if (current?.webhookId === webhookId) await freeIfNaming(store, current);
}
