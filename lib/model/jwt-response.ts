// The JWT of an authorization response in a JWT response mode (JWT Secured
// Authorization Response Mode, JARM §2.1): the response's parameters (code or
// the implicit flow's tokens, or error and error_description; state) as claims,
// with `iss` (the issuer, which RFC 9207's parameter would carry otherwise),
// `aud` (the client) and a short `exp`. Signed, never encrypted: Keyflow
// advertises no authorization_encryption_* values. Pure.
import type { IdTokenAlg } from './clients.js';
import { defaultSignedResponseAlg, type FapiProfile } from './fapi2.js';

/**
 * How long a response JWT is accepted. JARM asks for a short lifetime, at most
 * 10 minutes recommended; the JWT is read once, at the redirect, and
 * the code inside lives a minute. Five minutes leave room for a relying party
 * whose clock is a little behind, and for a user who presses the form_post
 * page's Continue button by hand.
 */
export const JWT_RESPONSE_TTL_SECONDS = 300;

/**
 * The algorithm a client's response JWTs are signed with: the one it
 * registered, else JARM's default, RS256 (PS256 for a FAPI 2.0 client), applied
 * when signing (nothing is stored). A client no longer found: RS256.
 */
export const authorizationResponseAlg = (client: { authorizationSignedResponseAlg?: IdTokenAlg | null; fapiProfile?: FapiProfile | null } | null): IdTokenAlg =>
  client?.authorizationSignedResponseAlg ?? defaultSignedResponseAlg(client ?? {});

/** The claims of the response JWT: `params` (null and undefined ones left out), then iss, aud and exp, which no parameter can replace. */
export function jwtResponseClaims(
  issuer: string,
  clientId: string,
  params: Record<string, string | null | undefined>,
  nowMs: number,
): Record<string, string | number> {
  const present = Object.entries(params).filter((e): e is [string, string] => e[1] !== null && e[1] !== undefined);
  return { ...Object.fromEntries(present), iss: issuer, aud: clientId, exp: Math.floor(nowMs / 1000) + JWT_RESPONSE_TTL_SECONDS };
}
