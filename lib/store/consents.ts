// Consents in MongoDB (the model: model/consents.ts).
import type { ConsentDoc } from '../model/consents.js';
import type { Store } from './db.js';
import { currentDate } from '../runtime/clock.js';

export async function findConsent(store: Store, userId: string, clientId: string): Promise<ConsentDoc | null> {
  return store.consents.findOne({ _id: `${userId}:${clientId}` });
}

/** Forgets the consents of a user or given to a client (deletions; filters on a field, not a hot path). */
export async function deleteConsents(store: Store, of: { userId: string } | { clientId: string }): Promise<number> {
  return (await store.consents.deleteMany(of)).deletedCount;
}

export async function recordConsent(store: Store, userId: string, clientId: string, scopes: string[], claims: string[] = []): Promise<void> {
  await store.consents.updateOne(
    { _id: `${userId}:${clientId}` },
    { $set: { userId, clientId, updatedAt: currentDate() }, $addToSet: { scopes: { $each: scopes }, claims: { $each: claims } } },
    { upsert: true },
  );
}

/** A user's consents (a filter on a field: the account page, not a hot path). */
export async function listUserConsents(store: Store, userId: string): Promise<ConsentDoc[]> {
  return store.consents.find({ userId }).toArray();
}

/** Forgets what one user allowed one client; false if there was nothing. */
export async function deleteConsent(store: Store, userId: string, clientId: string): Promise<boolean> {
  return (await store.consents.deleteOne({ _id: `${userId}:${clientId}` })).deletedCount === 1;
}
