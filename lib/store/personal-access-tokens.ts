// Personal access tokens in MongoDB (the model and its rules:
// model/personal-access-tokens.ts), looked up by `_id` (the token's hash).
import {
  cappedPatExpiry,
  isLivePat,
  isPatCandidate,
  newPersonalAccessToken,
  patAccess,
  type NewPersonalAccessToken,
  type PatAccess,
  type PersonalAccessTokenDoc,
} from '../model/personal-access-tokens.js';
import { hashSecret } from '../security/secrets.js';
import type { Store } from './db.js';

// Re-exported for modules that still import these from the store.

/** The collection's name (Store.personalAccessTokens), for tests that look at it directly. */
export const PAT_COLLECTION = 'personal_access_tokens';

/** Creates a token; the returned `token` is never stored or shown again. Scopes must already be checked against patScopesFor. */
export async function createPersonalAccessToken(
  store: Store,
  userId: string,
  input: NewPersonalAccessToken,
): Promise<{ token: string; doc: PersonalAccessTokenDoc }> {
  const created = newPersonalAccessToken(userId, input);
  await store.personalAccessTokens.insertOne(created.doc);
  return created;
}

/**
 * Shortens every stored token that outlives `maxLifetimeMs` from its creation
 * (or has no expiry) to end then: run when the api starts, so a token older
 * than the cap stops working whatever it was created with. Returns how many.
 */
export async function capPersonalAccessTokenLifetimes(store: Store, maxLifetimeMs: number): Promise<number> {
  let capped = 0;
  // Off the hot path: a scan of the collection once per start.
  for await (const doc of store.personalAccessTokens.find({}, { projection: { _id: 1, createdAt: 1, expiresAt: 1 } })) {
    const cap = cappedPatExpiry(doc, maxLifetimeMs);
    if (!cap) continue;
    await store.personalAccessTokens.updateOne({ _id: doc._id }, { $set: { expiresAt: cap } });
    capped++;
  }
  return capped;
}

/** The user's tokens, newest first (filters on userId: pages only, not a hot path). */
export async function listPersonalAccessTokens(store: Store, userId: string): Promise<PersonalAccessTokenDoc[]> {
  return store.personalAccessTokens.find({ userId }, { sort: { createdAt: -1 }, limit: 500 }).toArray();
}

/** Revokes (deletes) one of the user's tokens; false when there is none with that id. */
export async function revokePersonalAccessToken(store: Store, userId: string, id: string): Promise<boolean> {
  return (await store.personalAccessTokens.deleteOne({ id, userId })).deletedCount === 1;
}

/** The live token document for a presented token (by `_id` = hash), or null when unknown, revoked or expired. */
export async function findPersonalAccessToken(store: Store, token: string): Promise<PersonalAccessTokenDoc | null> {
  if (!isPatCandidate(token)) return null;
  const doc = await store.personalAccessTokens.findOne({ _id: hashSecret(token) });
  return doc && isLivePat(doc) ? doc : null;
}

/** The access a presented personal access token grants at a resource endpoint, or null (unknown, expired, or its user is gone or disabled). */
export async function personalAccessTokenContext(store: Store, token: string): Promise<PatAccess | null> {
  const doc = await findPersonalAccessToken(store, token);
  if (!doc) return null;
  const user = await store.users.findOne({ _id: doc.userId }, { projection: { role: 1, disabled: 1 } });
  // A disabled user's tokens are kept, refused while disabled: enabling the account brings them back.
  return user && user.disabled !== true ? patAccess(doc, user.role) : null;
}
