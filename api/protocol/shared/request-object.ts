// Request objects (OpenID Connect Core §6, RFC 9101): reading one, by value
// (`request`) or from the client's `request_uri`, and verifying it — one
// verifier for the authorization endpoint and for PAR (RFC 9126 §3), where a
// client may push its request as a request object. The parameters it carries
// are lib/model/request-object.ts's business.
//
// Verification (RFC 9101 §6, OIDC Core §6.3):
// - Signed with a key of the client (inline jwks or jwks_uri: client-keys.ts),
//   RS256, PS256, ES256 or EdDSA; `iss` the client_id and `aud` the issuer,
//   both required. `aud` may be the issuer as a string or an array that holds
//   it (RFC 7519 §4.1.3): a request object is not a credential — the code it
//   leads to goes only to a registered redirect URI and is redeemed with the
//   client's own authentication and PKCE — so the audience-injection concern
//   that holds client assertions to a single string does not apply. Endpoint
//   URLs are not the issuer and are refused.
// - Unsigned (`alg: none`), as OIDC Core allows and the OpenID Foundation's
//   dynamic-profile tests send, only from a client that registered no
//   `request_object_signing_alg` (or registered `none`): such an object is no
//   stronger than the same parameters in the query, which any client may send.
//   A client that registered an algorithm gets only objects signed with it.
// - `exp` is optional (OIDC Core does not ask for it, RFC 9101 recommends it,
//   and the OpenID Foundation's signed-request_uri test sends none); when
//   present it must lie ahead, and at most an hour ahead; an `iat` must be in
//   the past and at most an hour old; an `nbf` must have passed. A `jti` of a
//   signed object is single use, remembered for as long as the object could be
//   accepted (until its exp; without exp, an hour past its iat or, without
//   either, an hour): a signed object without exp and iat can be played again
//   after that hour, which only a client that leaves both out risks.
// - `typ`, when present, is `oauth-authz-req+jwt` (RFC 9101 §10.8) or `JWT`.
// - A client registered with `require_signed_request_object` (RFC 9101 §10.5)
//   sends every request as a signed object. A FAPI 2.0 client's objects are
//   signed with PS256, ES256 or EdDSA and carry `exp` and `nbf`, `nbf` at most
//   an hour old and `exp` at most an hour after it (FAPI 2.0 Message Signing
//   §5.3.1).
import { decodeJwt, decodeProtectedHeader, errors as joseErrors, jwtVerify, UnsecuredJWT, type JWTPayload, type JWTVerifyOptions } from 'jose';
import { FAPI2_CLIENT_ALGS, isFapi2 } from '../../../lib/model/fapi2.js';
import type { ClientDoc } from '../../../lib/model/clients.js';
import {
  authorizationParamsOf,
  isRegisteredRequestUri,
  MAX_REQUEST_OBJECT_BYTES,
  MAX_REQUEST_URI_LENGTH,
  REQUEST_OBJECT_ALGS,
  type AuthorizationParams,
} from '../../../lib/model/request-object.js';
import { admitsUrl, outboundRequest, OutboundError, type OutboundErrorKind, type OutboundPolicy } from '../../../lib/runtime/http-client.js';
import type { Store } from '../../../lib/store/db.js';
import { claimOnce } from '../../../lib/store/single-use.js';
import { isNoMatchingKey, JwksUnavailable, type ClientKeys } from './client-keys.js';
import { currentDate, currentTimeMs } from '../../../lib/runtime/clock.js';

/** How long a request object may be accepted: exp at most this far ahead, iat at most this long ago. */
const MAX_LIFETIME_S = 3600;
const CLOCK_TOLERANCE_S = 30;
/** A request_uri answers within this (or OUTBOUND_TIMEOUT_MS, if shorter): the user's browser is waiting. */
const REQUEST_URI_TIMEOUT_MS = 5_000;

export interface RequestObjectDeps {
  issuer: string;
  store: Store;
  /** The process's client keys (shared with private_key_jwt: one jwks_uri cache). */
  keys: ClientKeys;
  outbound: OutboundPolicy;
}

export type RequestObjectError = 'invalid_request' | 'invalid_request_object' | 'invalid_request_uri';
export type RequestObjectFailure = { ok: false; error: RequestObjectError; description: string };

export interface RequestObjectVerifier {
  /** The claims of `jwt`, a request object of `client`, once verified (and its jti claimed). */
  verify(client: ClientDoc, jwt: string): Promise<{ ok: true; claims: JWTPayload } | RequestObjectFailure>;
  /** The request object at `uri`, one of the client's registered request_uris (RFC 9101 §5.2, OIDC Core §6.2). */
  fetch(client: ClientDoc, uri: string): Promise<{ ok: true; jwt: string } | RequestObjectFailure>;
}

/** RFC 9101 §10.8 explicit typing; `JWT`, or nothing, as OIDC Core's objects have. Linear. */
const ACCEPTED_TYP = /^(?:application\/)?(?:oauth-authz-req\+jwt|jwt)$/i;

const OUTBOUND_PROBLEMS: Record<OutboundErrorKind, string> = {
  refused: 'the request_uri is not allowed (an internal address, or plain http)',
  timeout: 'the request_uri did not answer in time',
  unreachable: 'the request_uri could not be reached',
  too_large: `the request object at the request_uri is larger than ${MAX_REQUEST_OBJECT_BYTES} bytes`,
  invalid_url: 'the request_uri is not a URL Keyflow can fetch',
};

const objectError = (description: string): RequestObjectFailure => ({ ok: false, error: 'invalid_request_object', description });
const uriError = (description: string): RequestObjectFailure => ({ ok: false, error: 'invalid_request_uri', description });

/** A jose failure as what the client is told. */
function describeFailure(err: unknown): string {
  if (err instanceof JwksUnavailable) return err.message;
  if (isNoMatchingKey(err)) return 'no key of the client matches the request object (kid)';
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return 'the request object signature is invalid';
  if (err instanceof joseErrors.JWTExpired)
    return err.claim === 'iat' ? `the request object was issued more than ${MAX_LIFETIME_S} seconds ago (iat)` : 'the request object has expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    const expected: Record<string, string> = { iss: ' (the client_id)', aud: ' (the issuer)' };
    return err.reason === 'missing'
      ? `the request object has no ${err.claim} claim${expected[err.claim] ?? ''}`
      : `the request object's ${err.claim} claim is not accepted${expected[err.claim] ?? ''}`;
  }
  return 'the request object is not a valid JWT';
}

/** One verifier per api process, on the process's client keys. */
export function requestObjectVerifier(deps: RequestObjectDeps): RequestObjectVerifier {
  const fetchPolicy: OutboundPolicy = {
    ...deps.outbound,
    timeoutMs: Math.min(deps.outbound.timeoutMs, REQUEST_URI_TIMEOUT_MS),
    maxResponseBytes: Math.min(deps.outbound.maxResponseBytes, MAX_REQUEST_OBJECT_BYTES),
  };

  /** A signed object's jti, claimed until the object could no longer be accepted anyway. */
  async function claimJti(client: ClientDoc, payload: JWTPayload): Promise<RequestObjectFailure | null> {
    const { jti, exp, iat } = payload;
    if (jti === undefined) return null;
    if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256) return objectError('the request object jti is invalid');
    const until = exp ?? (iat ?? Math.floor(currentTimeMs() / 1000)) + MAX_LIFETIME_S;
    const ttlMs = (until + CLOCK_TOLERANCE_S) * 1000 - currentTimeMs();
    const first = await claimOnce(deps.store, `request-object:${client._id}:${jti}`, Math.max(ttlMs, 1_000));
    return first ? null : objectError('the request object was already used (jti)');
  }

  return {
    async verify(client, jwt) {
      if (jwt.length > MAX_REQUEST_OBJECT_BYTES) return objectError(`the request object is larger than ${MAX_REQUEST_OBJECT_BYTES} bytes`);
      if (jwt.split('.').length === 5) return objectError('encrypted request objects are not supported');
      let alg: unknown;
      let typ: unknown;
      let unverified: JWTPayload;
      try {
        ({ alg, typ } = decodeProtectedHeader(jwt));
        unverified = decodeJwt(jwt);
      } catch {
        return objectError('the request object is not a JWT');
      }
      if (typ !== undefined && !(typeof typ === 'string' && ACCEPTED_TYP.test(typ))) return objectError('the request object typ must be oauth-authz-req+jwt');
      const registered = client.requestObjectSigningAlg ?? null;
      if (registered !== null && alg !== registered) return objectError(`this client's request objects must use ${registered} (request_object_signing_alg)`);
      const signed = alg !== 'none';
      const fapi = isFapi2(client);
      if (!signed && (fapi || client.requireSignedRequestObject))
        return objectError("this client's request objects must be signed (require_signed_request_object)");
      if (signed && !REQUEST_OBJECT_ALGS.some((a) => a === alg))
        return objectError(`request objects are signed with ${REQUEST_OBJECT_ALGS.join(', ')}, or unsigned (none)`);
      if (fapi && !FAPI2_CLIENT_ALGS.some((a) => a === alg))
        return objectError(`a FAPI 2.0 client's request objects are signed with ${FAPI2_CLIENT_ALGS.join(', ')}`);

      // iss and aud are required of a signed object, and checked in an unsigned one that has them.
      const options: JWTVerifyOptions = {
        clockTolerance: CLOCK_TOLERANCE_S,
        currentDate: currentDate(),
        ...(signed || unverified.iss !== undefined ? { issuer: client._id } : {}),
        ...(signed || unverified.aud !== undefined ? { audience: deps.issuer } : {}),
        ...(unverified.iat !== undefined ? { maxTokenAge: MAX_LIFETIME_S } : {}),
        ...(fapi ? { requiredClaims: ['exp', 'nbf'] } : {}),
      };
      let payload: JWTPayload;
      try {
        if (!signed) ({ payload } = UnsecuredJWT.decode(jwt, options));
        else {
          const keys = deps.keys.resolver(client);
          if (!keys) return objectError('the client has no jwks or jwks_uri to verify a signed request object with');
          ({ payload } = await jwtVerify(jwt, keys, { ...options, algorithms: [alg as string] }));
        }
      } catch (err) {
        return objectError(describeFailure(err));
      }
      if (payload.exp !== undefined && payload.exp - currentTimeMs() / 1000 > MAX_LIFETIME_S + CLOCK_TOLERANCE_S)
        return objectError(`a request object may live at most ${MAX_LIFETIME_S} seconds (exp)`);
      if (fapi && (payload.exp! - payload.nbf! > MAX_LIFETIME_S || currentTimeMs() / 1000 - payload.nbf! > MAX_LIFETIME_S + CLOCK_TOLERANCE_S))
        return objectError(`a FAPI 2.0 request object's nbf is at most ${MAX_LIFETIME_S} seconds old, and its exp at most ${MAX_LIFETIME_S} seconds after it`);
      // Replay matters only for a signed object: anyone can make a new unsigned one.
      const replayed = signed ? await claimJti(client, payload) : null;
      return replayed ?? { ok: true, claims: payload };
    },

    async fetch(client, uri) {
      if (uri.length > MAX_REQUEST_URI_LENGTH) return uriError(`the request_uri must be at most ${MAX_REQUEST_URI_LENGTH} characters`);
      let url: URL;
      try {
        url = new URL(uri);
      } catch {
        return uriError('the request_uri must be an absolute https URL');
      }
      // Plain http only where the operator's allow-list admits it (a development or test setup).
      if (url.protocol !== 'https:' && !(url.protocol === 'http:' && admitsUrl(deps.outbound, 'request_uri', url)))
        return uriError('the request_uri must be an https URL');
      // RFC 9101 §10.4.1: Keyflow fetches only what the client registered, never any URL a browser brings.
      if (!isRegisteredRequestUri(client.requestUris ?? [], uri)) return uriError('the request_uri is not one this application registered (request_uris)');
      try {
        const res = await outboundRequest(fetchPolicy, 'request_uri', uri, { headers: { accept: 'application/oauth-authz-req+jwt, application/jwt' } });
        if (res.status !== 200) return uriError(`the request_uri answered ${res.status}`);
        return { ok: true, jwt: res.body.toString('utf8').trim() };
      } catch (err) {
        // The kind only: a system message would tell the client about the network behind Keyflow.
        return uriError(OUTBOUND_PROBLEMS[err instanceof OutboundError ? err.kind : 'unreachable']);
      }
    },
  };
}

/** What the authorization request becomes with its request object. */
export type Resolution =
  /** No request object: the parameters as they are. */
  | { kind: 'none' }
  /** The object's parameters (lib/model/request-object.ts). */
  | { kind: 'ok'; params: AuthorizationParams }
  /** Refused. `reply`: redirect_uri, state and response_mode to answer with, if the client registered that redirect URI. */
  | { kind: 'error'; error: RequestObjectError; description: string; reply: Record<string, unknown> };

/**
 * Where a refusal goes: the object's redirect_uri, state and response_mode,
 * read without verifying it (the object is what failed), else the query's.
 * The redirect URI must still be one the client registered (refusalTarget),
 * so this sends nothing anywhere the query's parameters could not.
 */
function replyOf(query: Record<string, unknown>, jwt: string | undefined): Record<string, unknown> {
  let inside: JWTPayload = {};
  try {
    if (jwt !== undefined && jwt.length <= MAX_REQUEST_OBJECT_BYTES) inside = decodeJwt(jwt);
  } catch {
    // Not a JWT: the query's alone.
  }
  const pick = (name: string) => (typeof inside[name] === 'string' ? inside[name] : query[name]);
  return { redirect_uri: pick('redirect_uri'), state: pick('state'), response_mode: pick('response_mode') };
}

/**
 * The authorization request `query` of `client` with its request object read:
 * `request` by value or `request_uri` by reference (a PAR request_uri is not
 * this function's: the authorization endpoint handles it first, and PAR refuses
 * a pushed request_uri). Both at once are invalid_request.
 */
export async function resolveRequestObject(verifier: RequestObjectVerifier, client: ClientDoc, query: Record<string, unknown>): Promise<Resolution> {
  const { request, request_uri: requestUri } = query;
  let jwt = typeof request === 'string' ? request : undefined;
  const fail = (error: RequestObjectError, description: string): Resolution => ({ kind: 'error', error, description, reply: replyOf(query, jwt) });
  if (request === undefined && requestUri === undefined) {
    // RFC 9101 §10.5: this client's parameters come only inside a signed object.
    if (client.requireSignedRequestObject)
      return fail('invalid_request', 'this client sends its authorization requests as signed request objects (require_signed_request_object)');
    return { kind: 'none' };
  }
  if (request !== undefined && requestUri !== undefined) return fail('invalid_request', 'request and request_uri cannot both be sent');
  if (request !== undefined && typeof request !== 'string') return fail('invalid_request', 'request must appear once');
  if (requestUri !== undefined) {
    if (typeof requestUri !== 'string') return fail('invalid_request', 'request_uri must appear once');
    const fetched = await verifier.fetch(client, requestUri);
    if (!fetched.ok) return fail(fetched.error, fetched.description);
    jwt = fetched.jwt;
  }
  const verified = await verifier.verify(client, jwt!);
  if (!verified.ok) return fail(verified.error, verified.description);
  const merged = authorizationParamsOf(verified.claims, query);
  if (!merged.ok) return fail('invalid_request_object', merged.description);
  return { kind: 'ok', params: merged.params };
}
