// Signing keys in MongoDB (the model: model/signing-keys.ts). One key per
// (alg, generation), by a unique index: two processes making the same
// generation race safely, the second insert fails.
import type { SigningAlg, SigningKeyDoc } from '../model/signing-keys.js';
import { insertIfAbsent, type Store } from './db.js';

// Re-exported for modules that still import these from the store.

export function listSigningKeys(store: Store, filter: Partial<Pick<SigningKeyDoc, 'status' | 'alg'>> = {}): Promise<SigningKeyDoc[]> {
  return store.signingKeys.find(filter, { sort: { alg: 1, generation: 1 } }).toArray();
}

export function findSigningKey(store: Store, kid: string): Promise<SigningKeyDoc | null> {
  return store.signingKeys.findOne({ _id: kid });
}

/** The key of `alg` with the highest generation. */
export function newestSigningKey(store: Store, alg: SigningAlg): Promise<SigningKeyDoc | null> {
  return store.signingKeys.findOne({ alg }, { sort: { generation: -1 } });
}

export async function hasSigningKeyGeneration(store: Store, alg: SigningAlg, generation: number): Promise<boolean> {
  return (await store.signingKeys.findOne({ alg, generation }, { projection: { _id: 1 } })) !== null;
}

/** Stores a new key; false when its generation exists already (made by another process). */
export function insertSigningKey(store: Store, doc: SigningKeyDoc): Promise<boolean> {
  return insertIfAbsent(store.signingKeys, doc);
}

/**
 * Marks an active key retired, published until `publishedUntil`; the key after
 * the change (with the first retirement's times when it was retired already),
 * or null when there is none. Two retirements racing both apply (FerretDB's
 * conditional updates are not atomic): their times differ by milliseconds.
 */
export async function retireSigningKey(store: Store, kid: string, retiredAt: Date, publishedUntil: Date): Promise<SigningKeyDoc | null> {
  const retired = await store.signingKeys.findOneAndUpdate(
    { _id: kid, status: 'active' },
    { $set: { status: 'retired', retiredAt, publishedUntil } },
    { returnDocument: 'after' },
  );
  return retired ?? findSigningKey(store, kid);
}
