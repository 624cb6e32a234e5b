// Passkeys in MongoDB (the model: domain/passkeys.ts).
import type { PasskeyDoc } from '../domain/passkeys.js';
import type { Store } from './db.js';

export function listPasskeys(store: Store, userId: string): Promise<PasskeyDoc[]> {
  return store.passkeys.find({ userId }, { sort: { createdAt: 1 } }).toArray();
}

/** Whether the user has at least one passkey (a second factor, and a way to sign in). */
export async function hasPasskey(store: Store, userId: string): Promise<boolean> {
  return (await store.passkeys.countDocuments({ userId }, { limit: 1 })) > 0;
}

export function findPasskey(store: Store, credentialId: string): Promise<PasskeyDoc | null> {
  return store.passkeys.findOne({ _id: credentialId });
}

export async function insertPasskey(store: Store, doc: PasskeyDoc): Promise<void> {
  await store.passkeys.insertOne(doc);
}

/** Records a sign-in with the passkey: its new signature counter and the time. */
export async function recordPasskeyUse(store: Store, credentialId: string, counter: number): Promise<void> {
  await store.passkeys.updateOne({ _id: credentialId }, { $set: { counter, lastUsedAt: new Date() } });
}

// A passkey is removed through sign-in-ways.ts, which refuses removing the last way to sign in.
