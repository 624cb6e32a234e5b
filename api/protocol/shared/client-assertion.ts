// private_key_jwt client authentication (RFC 7523 §2.2, OIDC Core §9): a JWT
// signed with the client's own key, verified against its inline `jwks` or its
// `jwks_uri` (client-keys.ts). Its `aud` is the issuer, a single string, at
// every endpoint. Each assertion is single use (its `jti`).
import { FAPI2_CLIENT_ALGS, isFapi2 } from '../../../lib/model/fapi2.js';
import { errors as joseErrors, jwtVerify } from 'jose';
import { CLIENT_KEY_ALGS } from '../../../lib/model/client-key-algs.js';
import { ENDPOINTS } from '../../../lib/model/discovery.js';
import type { ClientDoc } from '../../../lib/model/clients.js';
import type { Store } from '../../../lib/store/db.js';
import { claimOnce } from '../../../lib/store/single-use.js';
import { isNoMatchingKey, JwksUnavailable, type ClientKeys } from './client-keys.js';
import { currentDate, currentTimeMs } from '../../../lib/runtime/clock.js';

export const JWT_BEARER_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
export const CLIENT_ASSERTION_ALGS: string[] = [...CLIENT_KEY_ALGS];

/** Longest accepted lifetime of an assertion (exp - iat, and exp - now). */
const MAX_LIFETIME_S = 300;
const CLOCK_TOLERANCE_S = 30;
const MAX_ASSERTION_CHARS = 8_192;

export interface ClientAssertionDeps {
  issuer: string;
  /** Which `aud` values are accepted (CLIENT_ASSERTION_AUDIENCE): the issuer alone, or also the token endpoint's URL. */
  audience: ClientAssertionAudience;
  store: Store;
  /** The process's client keys (shared with request objects: one jwks_uri cache). */
  keys: ClientKeys;
}

export type AssertionResult = { ok: true } | { ok: false; description: string };

export interface ClientAssertionVerifier {
  /**
   * Verifies `assertion` for `client`, called at the endpoint `path`. The
   * audience is the issuer whatever the endpoint, so `path` does not change the answer.
   */
  verify(client: ClientDoc, assertion: string, path: string): Promise<AssertionResult>;
}

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
const acceptedAudiences = (issuer: string, audience: ClientAssertionAudience) => (audience === 'issuer' ? [issuer] : [issuer, `${issuer}${ENDPOINTS.token}`]);
const isAcceptedAudience = (aud: unknown, accepted: string[]) => typeof aud === 'string' && accepted.includes(aud);

/** One verifier per api process, on the process's client keys. */
export function clientAssertionVerifier(deps: ClientAssertionDeps): ClientAssertionVerifier {
  return {
    async verify(client, assertion) {
      if (client.tokenEndpointAuthMethod !== 'private_key_jwt') return { ok: false, description: 'this client is not registered for private_key_jwt' };
      if (assertion.length > MAX_ASSERTION_CHARS) return { ok: false, description: 'client_assertion is too long' };
      const keys = deps.keys.resolver(client);
      if (!keys) return { ok: false, description: 'the client has no jwks or jwks_uri' };
      let payload: Record<string, unknown>;
      // FAPI 2.0 §5.3.2.1 and §5.4.1: the issuer alone as audience, whatever CLIENT_ASSERTION_AUDIENCE says, and the profile's algorithms.
      const fapi = isFapi2(client);
      const audience = fapi ? 'issuer' : deps.audience;
      const algorithms = fapi ? [...FAPI2_CLIENT_ALGS] : CLIENT_ASSERTION_ALGS;
      try {
        ({ payload } = await jwtVerify(assertion, keys, {
          algorithms,
          issuer: client._id,
          subject: client._id,
          audience: acceptedAudiences(deps.issuer, audience),
          requiredClaims: ['exp', 'jti'],
          clockTolerance: CLOCK_TOLERANCE_S,
          currentDate: currentDate(),
        }));
      } catch (err) {
        if (err instanceof JwksUnavailable) return { ok: false, description: err.message };
        if (isNoMatchingKey(err)) return { ok: false, description: 'no key of the client matches the client_assertion (kid)' };
        if (err instanceof joseErrors.JWTExpired) return { ok: false, description: 'the client_assertion has expired' };
        if (err instanceof joseErrors.JWTClaimValidationFailed) return { ok: false, description: `client_assertion claim ${err.claim} is invalid` };
        if (err instanceof joseErrors.JOSEAlgNotAllowed) return { ok: false, description: `client_assertion algorithms: ${algorithms.join(', ')}` };
        return { ok: false, description: 'the client_assertion is invalid' };
      }
      // The issuer as the single audience, at every endpoint: an endpoint URL, or an array
      // that also names something else, would let an assertion made for another party
      // (or another server that shares the client's key) be played here.
      if (!isAcceptedAudience(payload.aud, acceptedAudiences(deps.issuer, audience)))
        return {
          ok: false,
          description: `client_assertion aud must be ${audience === 'issuer' ? 'the issuer' : 'the issuer or the token endpoint URL'}, as a single string`,
        };
      const now = Math.floor(currentTimeMs() / 1000);
      const { exp, iat, jti } = payload as { exp: number; iat?: unknown; jti: unknown };
      if (iat !== undefined && (typeof iat !== 'number' || iat > now + CLOCK_TOLERANCE_S)) return { ok: false, description: 'client_assertion iat is invalid' };
      if (exp - (typeof iat === 'number' ? iat : now) > MAX_LIFETIME_S || exp - now > MAX_LIFETIME_S + CLOCK_TOLERANCE_S) {
        return { ok: false, description: `a client_assertion may live at most ${MAX_LIFETIME_S} seconds` };
      }
      if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256) return { ok: false, description: 'client_assertion jti is invalid' };
      const ttlMs = (exp + CLOCK_TOLERANCE_S) * 1000 - currentTimeMs();
      if (!(await claimOnce(deps.store, `assertion:${client._id}:${jti}`, Math.max(ttlMs, 1_000)))) {
        return { ok: false, description: 'the client_assertion was already used (jti)' };
      }
      return { ok: true };
    },
  };
}
