// Signing keys in MongoDB (the model: domain/signing-keys.ts). One key per
// (alg, generation), by a unique index: two processes making the same
// generation race safely, the second insert fails.
import type { SigningAlg, SigningKeyDoc } from '../domain/signing-keys.js';
import { insertIfAbsent, type Store } from './db.js';

// Re-exported for modules that still import these from the store.
export type { SigningAlg };

export function listSigningKeys(store: Store, filter: Partial<Pick<SigningKeyDoc, 'status' | 'alg'>> = {}): Promise<SigningKeyDoc[]> {
  return store.signingKeys.find(filter, { sort: { alg: 1, generation: 1 } }).toArray();
}

export function findSigningKey(store: Store, kid: string): Promise<SigningKeyDoc | null> {
  return store.signingKeys.findOne({ _id: kid });
}

/** The key of `alg` with the highest generation (among those of `status`, when given). */
export function newestSigningKey(store: Store, alg: SigningAlg, status?: SigningKeyDoc['status']): Promise<SigningKeyDoc | null> {
  return store.signingKeys.findOne(status ? { alg, status } : { alg }, { sort: { generation: -1 } });
}

export async function hasSigningKeyGeneration(store: Store, alg: SigningAlg, generation: number): Promise<boolean> {
  return (await store.signingKeys.findOne({ alg, generation }, { projection: { _id: 1 } })) !== null;
}

/** Stores a new key; false when its generation exists already (made by another process). */
export function insertSigningKey(store: Store, doc: SigningKeyDoc): Promise<boolean> {
  return insertIfAbsent(store.signingKeys, doc);
}

/** Marks a key retired (keeping the first retirement time); the key after the change, or null when there is none. */
export function retireSigningKey(store: Store, key: Pick<SigningKeyDoc, '_id' | 'retiredAt'>): Promise<SigningKeyDoc | null> {
  return store.signingKeys.findOneAndUpdate(
    { _id: key._id },
    { $set: { status: 'retired', retiredAt: key.retiredAt ?? new Date() } },
    { returnDocument: 'after' },
  );
}
