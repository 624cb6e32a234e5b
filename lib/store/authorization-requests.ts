// Authorization requests waiting for the user, in MongoDB (the model:
// model/pending-authorization.ts).
import { AUTHORIZATION_REQUEST_TTL_MS, type AuthorizationRequestDoc, type PendingAuthorization } from '../model/pending-authorization.js';
import { newSecret } from '../security/secrets.js';
import type { Store } from './db.js';
import { currentDate } from '../runtime/clock.js';

export async function saveAuthorizationRequest(store: Store, request: PendingAuthorization, browser: string): Promise<AuthorizationRequestDoc> {
  // Not a credential, but unguessable so that one user cannot walk into another's request.
  const doc: AuthorizationRequestDoc = {
    ...request,
    browser,
    _id: newSecret(),
    expiresAt: new Date(request.createdAt.getTime() + AUTHORIZATION_REQUEST_TTL_MS),
  };
  await store.authorizationRequests.insertOne(doc);
  return doc;
}

export async function findAuthorizationRequest(store: Store, id: unknown): Promise<AuthorizationRequestDoc | null> {
  if (typeof id !== 'string' || id.length > 100) return null;
  const doc = await store.authorizationRequests.findOne({ _id: id });
  return doc && doc.expiresAt > currentDate() ? doc : null;
}

/** Records the user's Allow on the request, with the team picked for its single-team scopes and how the site gate was passed. */
export async function markConsented(store: Store, id: string, userId: string, teamId: string | null, siteGateMethod: string | null): Promise<void> {
  await store.authorizationRequests.updateOne({ _id: id }, { $set: { consentedAt: currentDate(), consentedBy: userId, teamId, siteGateMethod } });
}

/** Records a passkey verified at this request's consent (the site-scope gate). */
export async function markSiteFactor(store: Store, id: string, userId: string): Promise<void> {
  await store.authorizationRequests.updateOne({ _id: id }, { $set: { siteFactor: { userId, at: currentDate() } } });
}

/** Ends a request once it was answered (code issued, denied, or failed); nothing to do if it was never stored. */
export async function finishAuthorizationRequest(store: Store, request: PendingAuthorization): Promise<void> {
  if (request._id) await store.authorizationRequests.deleteOne({ _id: request._id });
}
