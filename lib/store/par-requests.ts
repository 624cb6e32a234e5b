// Pushed authorization requests in MongoDB (the model: model/pushed-request.ts),
// looked up by `_id` only and used once (store/single-use.ts).
import type { ValidAuthorization } from '../model/authorization-request.js';
import {
  PAR_REQUEST_TTL_SECONDS,
  PAR_REUSE_MEMORY_MS,
  pushedRequestRefusal,
  requestUriFor,
  requestUriOpaque,
  type PushedRequestRefusal,
} from '../model/pushed-request.js';
import { hashSecret, newSecret } from '../security/secrets.js';
import type { Store } from './db.js';
import { claimOnce } from './single-use.js';
import { currentDate } from '../runtime/clock.js';

export async function savePushedRequest(
  store: Store,
  params: ValidAuthorization,
  ttlSeconds = PAR_REQUEST_TTL_SECONDS,
): Promise<{ requestUri: string; expiresIn: number }> {
  const opaque = newSecret();
  const now = currentDate();
  await store.parRequests.insertOne({
    _id: hashSecret(opaque),
    clientId: params.clientId,
    params,
    createdAt: now,
    expiresAt: new Date(now.getTime() + ttlSeconds * 1000),
  });
  return { requestUri: requestUriFor(opaque), expiresIn: ttlSeconds };
}

export type PushedRequestUse = { status: 'ok'; params: ValidAuthorization } | { status: 'invalid'; reason: PushedRequestRefusal };

/**
 * Uses a request_uri at the authorization endpoint: it must exist, be
 * unexpired, belong to `clientId`, and not have been used before. A request_uri
 * of another client is refused without being used up.
 */
export async function usePushedRequest(store: Store, requestUri: string, clientId: string): Promise<PushedRequestUse> {
  const opaque = requestUriOpaque(requestUri);
  if (opaque === null) return { status: 'invalid', reason: 'unknown' };
  const id = hashSecret(opaque);
  const doc = await store.parRequests.findOne({ _id: id });
  if (!doc) return { status: 'invalid', reason: 'unknown' };
  const refusal = pushedRequestRefusal(doc, clientId, currentDate());
  if (refusal) return { status: 'invalid', reason: refusal };
  if (!(await claimOnce(store, `par:${id}`, PAR_REQUEST_TTL_SECONDS * 1000 + PAR_REUSE_MEMORY_MS))) return { status: 'invalid', reason: 'used' };
  await store.parRequests.deleteOne({ _id: id });
  return { status: 'ok', params: doc.params };
}
