// A client's public keys, for every JWT a client signs (private_key_jwt
// assertions, request objects): its inline `jwks`, or its `jwks_uri`, fetched
// through the outbound client, cached per client, and refetched on an unknown
// `kid` (see mayRefetch). One instance per api process: it holds the cache.
import { createLocalJWKSet, errors as joseErrors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { outboundRequest, OutboundError, type OutboundPolicy } from '../../../lib/runtime/http-client.js';
import type { ClientDoc } from '../../../lib/model/clients.js';
import { currentTimeMs } from '../../../lib/runtime/clock.js';

const JWKS_CACHE_MS = 5 * 60_000;
const JWKS_REFETCH_MIN_MS = 30_000;

/** The client's jwks_uri could not be read: the message says why, without the network details behind Keyflow. */
export class JwksUnavailable extends Error {}

export const isNoMatchingKey = (err: unknown) => err instanceof joseErrors.JWKSNoMatchingKey;

export interface ClientKeys {
  /** The key resolver for the client's JWTs (jose's jwtVerify), or null when it has no jwks nor jwks_uri. */
  resolver(client: ClientDoc): JWTVerifyGetKey | null;
}

interface RemoteEntry {
  uri: string;
  keys: JWTVerifyGetKey;
  fetchedAt: number;
  /** Fetched because a JWT named a kid the cached set did not have. */
  forUnknownKid: boolean;
}

function parseJwks(body: Buffer): JSONWebKeySet {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw new JwksUnavailable('jwks_uri did not answer JSON');
  }
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new JwksUnavailable('jwks_uri did not answer a JWK Set');
  return { keys: keys.filter((k): k is JSONWebKeySet['keys'][number] => !!k && typeof k === 'object') };
}

export function clientKeys(deps: { outbound: OutboundPolicy }): ClientKeys {
  const remote = new Map<string, RemoteEntry>();
  const inline = new WeakMap<object, JWTVerifyGetKey>();

  const inFlight = new Map<string, Promise<RemoteEntry>>();

  /** One fetch at a time per client: concurrent requests share it. */
  function fetchRemote(clientId: string, uri: string, forUnknownKid: boolean): Promise<RemoteEntry> {
    const key = `${clientId} ${uri}`;
    let pending = inFlight.get(key);
    if (!pending) {
      pending = fetchRemoteNow(clientId, uri, forUnknownKid).finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    return pending;
  }

  async function fetchRemoteNow(clientId: string, uri: string, forUnknownKid: boolean): Promise<RemoteEntry> {
    const res = await outboundRequest(deps.outbound, 'jwks_uri', uri, { headers: { accept: 'application/jwk-set+json, application/json' } }).catch(
      (err: unknown) => {
        // The kind only: a system message would tell the client about the network behind Keyflow.
        throw new JwksUnavailable(`jwks_uri could not be fetched (${err instanceof OutboundError ? err.kind : 'unreachable'})`);
      },
    );
    if (res.status !== 200) throw new JwksUnavailable(`jwks_uri answered ${res.status}`);
    const entry = { uri, keys: createLocalJWKSet(parseJwks(res.body)), fetchedAt: currentTimeMs(), forUnknownKid };
    if (remote.size > 10_000) remote.clear();
    remote.set(clientId, entry);
    return entry;
  }

  async function remoteKeys(clientId: string, uri: string): Promise<RemoteEntry> {
    const hit = remote.get(clientId);
    if (hit && hit.uri === uri && currentTimeMs() - hit.fetchedAt < JWKS_CACHE_MS) return hit;
    return fetchRemote(clientId, uri, false);
  }

  /**
   * Whether an unknown kid may refetch the client's keys. A client rotates its
   * key whenever it likes, also moments after Keyflow fetched the set (a code
   * redeemed with the old key, a refresh with the new one), so a set fetched
   * for any other reason is refetched at once. A set fetched because of an
   * unknown kid is not, for 30 s: kids nobody has cannot make Keyflow fetch
   * the client's jwks_uri in a loop.
   */
  const mayRefetch = (entry: RemoteEntry) => !entry.forUnknownKid || currentTimeMs() - entry.fetchedAt >= JWKS_REFETCH_MIN_MS;

  return {
    resolver(client) {
      if (client.jwks) {
        let keys = inline.get(client.jwks);
        if (!keys) {
          keys = createLocalJWKSet(client.jwks);
          inline.set(client.jwks, keys);
        }
        return keys;
      }
      const uri = client.jwksUri;
      if (!uri) return null;
      return async (header, token) => {
        const entry = await remoteKeys(client._id, uri);
        try {
          return await entry.keys(header, token);
        } catch (err) {
          if (!isNoMatchingKey(err)) throw err;
          // Key rotation at the client. A set a concurrent request fetched meanwhile decides; else refetch once (mayRefetch says when).
          const current = remote.get(client._id);
          if (current && current !== entry && current.uri === uri) return current.keys(header, token);
          if (!mayRefetch(entry)) throw err;
          return (await fetchRemote(client._id, uri, true)).keys(header, token);
        }
      };
    },
  };
}
