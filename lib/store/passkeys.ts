// Passkeys in MongoDB (the model: domain/passkeys.ts).
import type { PasskeyDoc } from '../domain/passkeys.js';
import type { Store } from './db.js';

export function listPasskeys(store: Store, userId: string): Promise<PasskeyDoc[]> {
  return store.passkeys.find({ userId }, { sort: { createdAt: 1 } }).toArray();
}

/** Whether the user has at least one passkey (a second factor). */
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

/** Deletes one of the user's passkeys (another user's id deletes nothing). */
export async function deletePasskey(store: Store, userId: string, credentialId: string): Promise<void> {
  await store.passkeys.deleteOne({ _id: credentialId, userId });
}
