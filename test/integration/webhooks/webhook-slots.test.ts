// An owner's webhooks found through its slots, against a real FerretDB: admin
// webhooks of every admin in the site's slots, a slot left by a crash ignored
// and then taken over, bulk loads that write slots (and can run again), and
// an owner without webhooks known as such in one lookup.
import os from 'node:os';
import { WEBHOOK_LIMITS, type WebhookDoc } from '../../../lib/model/webhooks.js';
import { newId } from '../../../lib/security/secrets.js';
import { loadKek } from '../../../lib/security/kek.js';
import { dropDatabase } from '../../../lib/store/db.js';
import { createWebhook, createWebhooks, deleteWebhook, listWebhooks, type NewWebhook } from '../../../lib/store/webhooks.js';
import { WebhookSlotsFull } from '../../../lib/store/webhook-slots.js';
import { commandFilters } from '../../support/command-filters.js';
import { openTestStore, testDatabase } from '../../support/database.js';

// A database of its own: the site's admin slots hold this file's admin webhooks alone.
const store = openTestStore(testDatabase('webhook_slots'));
const kek = loadKek(Buffer.alloc(32, 7), os.tmpdir());
afterAll(async () => {
  await dropDatabase(store);
  await store.close();
});

const MAX = WEBHOOK_LIMITS.user;
const input = (ownerUserId: string, name = 'h'): NewWebhook => ({ scope: 'user', ownerUserId, name, url: 'https://hooks.example/h', events: ['*'] });
const names = (hooks: WebhookDoc[]) => hooks.map((h) => h.name);

/** Fills the user's every slot; the webhooks, oldest first. */
async function fill(owner: string): Promise<WebhookDoc[]> {
  for (let i = 0; i < MAX; i++) await createWebhook(store, kek, input(owner, `h${i}`));
  return listWebhooks(store, 'user', owner);
}

describe('webhook slots', () => {
  it('finds that a user without webhooks has none in one lookup, and keeps a webhook created while another is deleted', async () => {
    const owner = newId();
    const lookups = await commandFilters(store, ['webhooks', 'webhook_slots'], () => listWebhooks(store, 'user', owner));
    expect(lookups).toEqual([{ _id: `user:${owner}:holder` }]);

    const first = await createWebhook(store, kek, input(owner, 'first'));
    expect(names(await listWebhooks(store, 'user', owner))).toEqual(['first']);
    expect(await deleteWebhook(store, first.webhook._id)).toBe(true);
    expect(await listWebhooks(store, 'user', owner)).toEqual([]);
    expect(await store.webhookSlots.findOne({ _id: `user:${owner}:holder` })).toBeNull();

    for (let round = 0; round < 5; round++) {
      const old = await createWebhook(store, kek, input(owner, `old ${round}`));
      const [, added] = await Promise.all([deleteWebhook(store, old.webhook._id), createWebhook(store, kek, input(owner, `new ${round}`))]);
      expect(names(await listWebhooks(store, 'user', owner))).toEqual([`new ${round}`]);
      await deleteWebhook(store, added.webhook._id);
    }
  });

  it('lists a user’s webhooks oldest first, no one else’s, and refuses one past the limit', async () => {
    const [owner, other] = [newId(), newId()];
    const hooks = await fill(owner);
    expect(names(hooks)).toEqual(Array.from({ length: MAX }, (_, i) => `h${i}`));
    await createWebhook(store, kek, input(other, 'other'));
    expect(names(await listWebhooks(store, 'user', other))).toEqual(['other']);
    await expect(createWebhook(store, kek, input(owner, 'one too many'))).rejects.toThrow(WebhookSlotsFull);
    expect(await deleteWebhook(store, hooks[3]!._id)).toBe(true);
    await createWebhook(store, kek, input(owner, 'after a deletion'));
    expect(names(await listWebhooks(store, 'user', owner))).toEqual([...names(hooks).filter((n) => n !== 'h3'), 'after a deletion']);
  });

  it('keeps the admin webhooks of every admin in the site’s slots', async () => {
    const a = await createWebhook(store, kek, { ...input(newId(), 'by a'), scope: 'admin' });
    const b = await createWebhook(store, kek, { ...input(newId(), 'by b'), scope: 'admin' });
    expect((await listWebhooks(store, 'admin')).map((h) => h._id)).toEqual([a.webhook._id, b.webhook._id]);
    expect(await listWebhooks(store, 'user', a.webhook.ownerUserId!)).toEqual([]);
    await deleteWebhook(store, a.webhook._id);
    await deleteWebhook(store, b.webhook._id);
    expect(await listWebhooks(store, 'admin')).toEqual([]);
  });

  it('ignores a slot whose webhook is gone (a crash half-way), and takes it over once it is not a create in progress', async () => {
    const owner = newId();
    const hooks = await fill(owner);
    // A deletion that stopped after the webhook went: its slot still names it.
    await store.webhooks.deleteOne({ _id: hooks[0]!._id });
    expect(names(await listWebhooks(store, 'user', owner))).toEqual(names(hooks.slice(1)));
    // As fresh as a create between its two inserts: left alone.
    await expect(createWebhook(store, kek, input(owner, 'too soon'))).rejects.toThrow(WebhookSlotsFull);
    // Claimed long ago: taken over.
    await store.webhookSlots.updateOne({ _id: hooks[0]!.slot! }, { $set: { claimedAt: new Date(Date.now() - 3600_000) } });
    const { webhook } = await createWebhook(store, kek, input(owner, 'taken over'));
    expect(webhook.slot).toBe(hooks[0]!.slot);
    expect(names(await listWebhooks(store, 'user', owner))).toEqual([...names(hooks.slice(1)), 'taken over']);
    // Deleting the first webhook again (already gone) frees nothing of the new one.
    expect(await deleteWebhook(store, hooks[0]!._id)).toBe(false);
    expect(names(await listWebhooks(store, 'user', owner))).toContain('taken over');
  });

  it('bulk loads write slots, can run again, and leave the free slots to later creates', async () => {
    const owner = newId();
    const bulk = [0, 1, 2].map((slot) => ({ ...input(owner, `bulk ${slot}`), id: `bulk-${owner}-${slot}`, slot }));
    await createWebhooks(store, kek, bulk);
    await createWebhooks(store, kek, bulk);
    expect(names(await listWebhooks(store, 'user', owner))).toEqual(['bulk 0', 'bulk 1', 'bulk 2']);
    const { webhook } = await createWebhook(store, kek, input(owner, 'later'));
    expect(webhook.slot).toBe(`user:${owner}:3`);
    expect(await listWebhooks(store, 'user', owner)).toHaveLength(4);
    await expect(createWebhooks(store, kek, [{ ...input(owner), id: `bulk-${owner}-x`, slot: MAX }])).rejects.toThrow(RangeError);
  });
});
