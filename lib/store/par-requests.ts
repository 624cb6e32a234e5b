// Pushed authorization requests (RFC 9126): the validated parameters of a
// request a client pushed, waiting to be named at the authorization endpoint
// by its request_uri. Stored by the SHA-256 of the opaque part of the
// request_uri (looked up by `_id` only); used once (store/single-use.ts), short-lived,
// bound to the client that pushed it.
import { PAR_REQUEST_URI_PREFIX, type ValidAuthorization } from '../domain/authorization-request.js';
import { hashSecret, newSecret } from '../security/secrets.js';
import type { Store } from './db.js';
import { claimOnce } from './single-use.js';

export interface ParRequestDoc {
  _id: string; // SHA-256 of the request_uri's opaque part
  clientId: string;
  params: ValidAuthorization;
  createdAt: Date;
  expiresAt: Date;
}

/** RFC 9126 §2.2 expires_in (the spec's reference value). */
export const PAR_REQUEST_TTL_SECONDS = 90;

const parRequests = (store: Store) => store.db.collection<ParRequestDoc>('par_requests');

export async function savePushedRequest(store: Store, params: ValidAuthorization, ttlSeconds = PAR_REQUEST_TTL_SECONDS): Promise<{ requestUri: string; expiresIn: number }> {
  const opaque = newSecret();
  const now = new Date();
  await parRequests(store).insertOne({
    _id: hashSecret(opaque),
    clientId: params.clientId,
    params,
    createdAt: now,
    expiresAt: new Date(now.getTime() + ttlSeconds * 1000),
  });
  return { requestUri: `${PAR_REQUEST_URI_PREFIX}${opaque}`, expiresIn: ttlSeconds };
}

export type PushedRequestUse = { status: 'ok'; params: ValidAuthorization } | { status: 'invalid'; reason: 'unknown' | 'expired' | 'other-client' | 'used' };

/**
 * Uses a request_uri at the authorization endpoint: it must exist, be
 * unexpired, belong to `clientId`, and not have been used before. A request_uri
 * of another client is refused without being used up.
 */
export async function usePushedRequest(store: Store, requestUri: string, clientId: string): Promise<PushedRequestUse> {
  if (!requestUri.startsWith(PAR_REQUEST_URI_PREFIX) || requestUri.length > PAR_REQUEST_URI_PREFIX.length + 100) return { status: 'invalid', reason: 'unknown' };
  const id = hashSecret(requestUri.slice(PAR_REQUEST_URI_PREFIX.length));
  const doc = await parRequests(store).findOne({ _id: id });
  if (!doc) return { status: 'invalid', reason: 'unknown' };
  if (doc.clientId !== clientId) return { status: 'invalid', reason: 'other-client' };
  if (doc.expiresAt <= new Date()) return { status: 'invalid', reason: 'expired' };
  // The guard outlives the request so that a late second use is still recognised.
  if (!(await claimOnce(store, `par:${id}`, PAR_REQUEST_TTL_SECONDS * 1000 + 10 * 60_000))) return { status: 'invalid', reason: 'used' };
  await parRequests(store).deleteOne({ _id: id });
  return { status: 'ok', params: doc.params };
}
