// A user's custom domains in MongoDB (the model: model/custom-domains.ts). A name is
// unique per user by index, so two concurrent adds of one name cannot both
// win; two users may each hold the same name, each with their own token.
import { ConflictError } from '../model/errors.js';
import type { DomainDoc } from '../model/custom-domains.js';
import { newId, newSecret } from '../security/secrets.js';
import { isDuplicateKeyError, type Store } from './db.js';
import { currentDate } from '../runtime/clock.js';

/** Adds an unverified domain with a fresh token; a name the user already holds is a ConflictError. */
export async function addDomain(store: Store, userId: string, domain: string): Promise<DomainDoc> {
  const doc: DomainDoc = { _id: newId(), userId, domain, token: newSecret(), verified: false, verifiedAt: null, createdAt: currentDate() };
  try {
    await store.domains.insertOne(doc);
  } catch (err) {
    if (isDuplicateKeyError(err)) throw new ConflictError(`you have already added ${domain}`);
    throw err;
  }
  return doc;
}

/** The user's domains, by name (the claims builder calls this). */
export function listDomains(store: Store, userId: string): Promise<DomainDoc[]> {
  return store.domains.find({ userId }).sort({ domain: 1 }).toArray();
}

/** One of the user's domains; null for another user's or a missing one. */
export async function findUserDomain(store: Store, userId: string, id: string): Promise<DomainDoc | null> {
  // By `_id` alone (FerretDB v1 scans for any other filter), then the owner.
  const doc = await store.domains.findOne({ _id: id });
  return doc?.userId === userId ? doc : null;
}

export function findDomain(store: Store, id: string): Promise<DomainDoc | null> {
  return store.domains.findOne({ _id: id });
}

/** Marks a domain verified (a domain verified already keeps its first time). */
export async function markDomainVerified(store: Store, id: string, at: Date): Promise<void> {
  await store.domains.updateOne({ _id: id, verified: false }, { $set: { verified: true, verifiedAt: at } });
}

/** Deletes one of the user's domains; false when it was not there. */
export async function deleteDomain(store: Store, userId: string, id: string): Promise<boolean> {
  const r = await store.domains.deleteOne({ _id: id, userId });
  return r.deletedCount === 1;
}
