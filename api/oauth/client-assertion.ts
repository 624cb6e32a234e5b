// private_key_jwt client authentication (RFC 7523 §2.2, OIDC Core §9): a JWT
// signed with the client's own key, verified against its inline `jwks` or its
// `jwks_uri` (fetched through the outbound client, cached per client, refetched
// on an unknown `kid`: see mayRefetch). Its `aud` is the issuer, a single
// string, at every endpoint. Each assertion is single use (its `jti`).
import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { CLIENT_KEY_ALGS, ENDPOINTS } from '../../lib/domain/discovery.js';
import { outboundRequest, OutboundError, type OutboundPolicy } from '../../lib/outbound/http-client.js';
import type { ClientDoc } from '../../lib/domain/clients.js';
import type { Store } from '../../lib/store/db.js';
import { claimOnce } from '../../lib/store/single-use.js';

export const JWT_BEARER_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
export const CLIENT_ASSERTION_ALGS: string[] = [...CLIENT_KEY_ALGS];

/** Longest accepted lifetime of an assertion (exp - iat, and exp - now). */
const MAX_LIFETIME_S = 300;
const CLOCK_TOLERANCE_S = 30;
const JWKS_CACHE_MS = 5 * 60_000;
const JWKS_REFETCH_MIN_MS = 30_000;
const MAX_ASSERTION_CHARS = 8_192;

export interface ClientAssertionDeps {
  issuer: string;
  /** Which `aud` values are accepted (CLIENT_ASSERTION_AUDIENCE): the issuer alone, or also the token endpoint's URL. */
  audience: ClientAssertionAudience;
  store: Store;
  outbound: OutboundPolicy;
}

export type AssertionResult = { ok: true } | { ok: false; description: string };

export interface ClientAssertionVerifier {
  /**
   * Verifies `assertion` for `client`, called at the endpoint `path`. The
   * audience is the issuer whatever the endpoint, so `path` does not change the answer.
   */
  verify(client: ClientDoc, assertion: string, path: string): Promise<AssertionResult>;
}

class JwksUnavailable extends Error {}

interface RemoteEntry {
  uri: string;
  keys: JWTVerifyGetKey;
  fetchedAt: number;
  /** Fetched because an assertion named a kid the cached set did not have. */
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

const isNoMatchingKey = (err: unknown) => err instanceof joseErrors.JWKSNoMatchingKey;

/**
 * An assertion's audience: one string, never an array that could also name
 * another party. By default the issuer alone (RFC 7523bis): an audience that
 * is an endpoint URL lets a malicious authorization server, whose metadata
 * names this server's endpoint as its own, have a client make an assertion it
 * can then replay here ("audience injection"). `issuer-or-token-endpoint`
 * also accepts this server's token endpoint URL, which OIDC Core §9 names
 * (what many RPs, and the OpenID conformance suite, send).
 */
export const CLIENT_ASSERTION_AUDIENCES = ['issuer', 'issuer-or-token-endpoint'] as const;
export type ClientAssertionAudience = (typeof CLIENT_ASSERTION_AUDIENCES)[number];
const acceptedAudiences = (issuer: string, audience: ClientAssertionAudience) =>
  audience === 'issuer' ? [issuer] : [issuer, `${issuer}${ENDPOINTS.token}`];
const isAcceptedAudience = (aud: unknown, accepted: string[]) => typeof aud === 'string' && accepted.includes(aud);

/** One verifier per api process: it holds the jwks_uri cache. */
export function clientAssertionVerifier(deps: ClientAssertionDeps): ClientAssertionVerifier {
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
    const entry = { uri, keys: createLocalJWKSet(parseJwks(res.body)), fetchedAt: Date.now(), forUnknownKid };
    if (remote.size > 10_000) remote.clear();
    remote.set(clientId, entry);
    return entry;
  }

  async function remoteKeys(clientId: string, uri: string): Promise<RemoteEntry> {
    const hit = remote.get(clientId);
    if (hit && hit.uri === uri && Date.now() - hit.fetchedAt < JWKS_CACHE_MS) return hit;
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
  const mayRefetch = (entry: RemoteEntry) => !entry.forUnknownKid || Date.now() - entry.fetchedAt >= JWKS_REFETCH_MIN_MS;

  /** The key resolver for the client: inline keys, or jwks_uri keys with one refetch on an unknown kid. */
  function keyResolver(client: ClientDoc): JWTVerifyGetKey | null {
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
  }

  return {
    async verify(client, assertion) {
      if (client.tokenEndpointAuthMethod !== 'private_key_jwt') return { ok: false, description: 'this client is not registered for private_key_jwt' };
      if (assertion.length > MAX_ASSERTION_CHARS) return { ok: false, description: 'client_assertion is too long' };
      const keys = keyResolver(client);
      if (!keys) return { ok: false, description: 'the client has no jwks or jwks_uri' };
      let payload: Record<string, unknown>;
      try {
        ({ payload } = await jwtVerify(assertion, keys, {
          algorithms: CLIENT_ASSERTION_ALGS,
          issuer: client._id,
          subject: client._id,
          audience: acceptedAudiences(deps.issuer, deps.audience),
          requiredClaims: ['exp', 'jti'],
          clockTolerance: CLOCK_TOLERANCE_S,
        }));
      } catch (err) {
        if (err instanceof JwksUnavailable) return { ok: false, description: err.message };
        if (isNoMatchingKey(err)) return { ok: false, description: 'no key of the client matches the client_assertion (kid)' };
        if (err instanceof joseErrors.JWTExpired) return { ok: false, description: 'the client_assertion has expired' };
        if (err instanceof joseErrors.JWTClaimValidationFailed) return { ok: false, description: `client_assertion claim ${err.claim} is invalid` };
        if (err instanceof joseErrors.JOSEAlgNotAllowed) return { ok: false, description: `client_assertion algorithms: ${CLIENT_ASSERTION_ALGS.join(', ')}` };
        return { ok: false, description: 'the client_assertion is invalid' };
      }
      // One accepted audience, as a single string, at every endpoint (see acceptedAudiences).
      if (!isAcceptedAudience(payload.aud, acceptedAudiences(deps.issuer, deps.audience)))
        return {
          ok: false,
          description: `client_assertion aud must be ${deps.audience === 'issuer' ? 'the issuer' : 'the issuer or the token endpoint URL'}, as a single string`,
        };
      const now = Math.floor(Date.now() / 1000);
      const { exp, iat, jti } = payload as { exp: number; iat?: unknown; jti: unknown };
      if (iat !== undefined && (typeof iat !== 'number' || iat > now + CLOCK_TOLERANCE_S)) return { ok: false, description: 'client_assertion iat is invalid' };
      if (exp - (typeof iat === 'number' ? iat : now) > MAX_LIFETIME_S || exp - now > MAX_LIFETIME_S + CLOCK_TOLERANCE_S) {
        return { ok: false, description: `a client_assertion may live at most ${MAX_LIFETIME_S} seconds` };
      }
      if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256) return { ok: false, description: 'client_assertion jti is invalid' };
      const ttlMs = (exp + CLOCK_TOLERANCE_S) * 1000 - Date.now();
      if (!(await claimOnce(deps.store, `assertion:${client._id}:${jti}`, Math.max(ttlMs, 1_000)))) {
        return { ok: false, description: 'the client_assertion was already used (jti)' };
      }
      return { ok: true };
    },
  };
}
