// Validated authorization requests waiting for the user (sign-in, consent).
// The browser carries only the request id; the parameters stay here.
import type { ValidAuthorization } from '../domain/authorization-request.js';
import { newSecret } from '../security/secrets.js';
import type { Store } from './db.js';

export type AuthorizationParams = ValidAuthorization;

export interface AuthorizationRequestDoc extends AuthorizationParams {
  _id: string;
  /** The browser the request was started in (hash of its binding cookie): only that browser can continue it. */
  browser: string;
  /** Set when the user allowed this very request (prompt=consent asks even when consent exists)... */
  consentedAt: Date | null;
  /** ...by this user: another user signing in afterwards must consent for themselves. */
  consentedBy: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/** Time a user has to sign in and consent. */
export const AUTHORIZATION_REQUEST_TTL_MS = 15 * 60_000;

/** A request being answered; `_id` and `browser` are set once it had to be stored (the user was sent to a page). */
export type PendingAuthorization = AuthorizationParams & { _id?: string; browser?: string; createdAt: Date; consentedAt: Date | null; consentedBy: string | null };

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
  return doc && doc.expiresAt > new Date() ? doc : null;
}

export async function markConsented(store: Store, id: string, userId: string): Promise<void> {
  await store.authorizationRequests.updateOne({ _id: id }, { $set: { consentedAt: new Date(), consentedBy: userId } });
}

/** Ends a request once it was answered (code issued, denied, or failed); nothing to do if it was never stored. */
export async function finishAuthorizationRequest(store: Store, request: PendingAuthorization): Promise<void> {
  if (request._id) await store.authorizationRequests.deleteOne({ _id: request._id });
}
