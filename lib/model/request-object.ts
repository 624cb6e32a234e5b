// Request objects (OpenID Connect Core §6, RFC 9101 JAR): the parameters of an
// authorization request as the claims of a JWT, sent by value (`request`) or
// by reference (`request_uri`, an https URL the client registered). Pure: the
// client metadata that governs them and what a verified object's claims mean as
// authorization parameters. Reading and verifying one is
// api/protocol/shared/request-object.ts.
//
// Merging (OIDC Core §6.1 against RFC 9101 §6.3): only the object's parameters
// are used. OIDC Core lets parameters outside the object fill in what it leaves
// out, the object winning where both have one; RFC 9101 uses the object's
// alone. Keyflow follows RFC 9101: a signed object then covers the whole
// request, and nothing added to the URL beside it (a prompt, a resource, a
// code_challenge) rides along unsigned. Clients of either specification work:
// where OIDC Core and RFC 9101 disagree, OIDC Core already lets the object win.
// The two parameters OIDC Core also wants outside, client_id and response_type,
// are checked: the query's client_id is required (both specifications) and the
// object's, when it names one, must equal it; the object's response_type must
// equal the query's when both have one, and either may leave it out (an OIDC
// Core client sends it outside, an RFC 9101 client may send it inside only).
import { z } from 'zod';
import { CLIENT_KEY_ALGS, type ClientKeyAlg } from './client-key-algs.js';
import { zodProblems } from './errors.js';
import { isLoopbackHost } from './redirect-uri.js';

/** Signed request objects: the algorithms of client-held keys. */
export const REQUEST_OBJECT_ALGS: readonly ClientKeyAlg[] = CLIENT_KEY_ALGS;

/**
 * What a client may register as `request_object_signing_alg` (OIDC Dynamic
 * Registration §2) and discovery advertises: a signing algorithm, or `none`
 * (unsigned objects only). A client that registers nothing may send either.
 */
export const REQUEST_OBJECT_SIGNING_ALG_VALUES = [...CLIENT_KEY_ALGS, 'none'] as const;
export type RequestObjectSigningAlg = (typeof REQUEST_OBJECT_SIGNING_ALG_VALUES)[number];

/** The `request_object_signing_alg` a client asked for: null (any offered) when it names none. */
export function requestObjectAlgOf(asked: string | null | undefined): { ok: true; alg: RequestObjectSigningAlg | null } | { ok: false; description: string } {
  if (asked === undefined || asked === null) return { ok: true, alg: null };
  const alg = REQUEST_OBJECT_SIGNING_ALG_VALUES.find((a) => a === asked);
  return alg ? { ok: true, alg } : { ok: false, description: `request_object_signing_alg must be one of ${REQUEST_OBJECT_SIGNING_ALG_VALUES.join(', ')}` };
}

/** RFC 9101 §5.2: a request_uri is at most 512 characters. */
export const MAX_REQUEST_URI_LENGTH = 512;
/** A request object, by value or as fetched, is at most this long. */
export const MAX_REQUEST_OBJECT_BYTES = 32 * 1024;

/**
 * Why a `request_uris` entry cannot be registered, or null: an absolute https
 * URL (http only on a loopback host, which the outbound allow-list must still
 * admit) without credentials. A fragment may be there (OIDC Dynamic
 * Registration §2 puts a hash of the content in it); it is never sent.
 */
export function requestUriProblem(value: string): string | null {
  if (value.length > MAX_REQUEST_URI_LENGTH) return `must be at most ${MAX_REQUEST_URI_LENGTH} characters`;
  try {
    const url = new URL(value);
    if (url.username || url.password) return 'must not carry credentials';
    if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) return null;
    return 'must be an absolute https URL (http only for loopback hosts)';
  } catch {
    return 'must be an absolute https URL';
  }
}

const withoutFragment = (uri: string) => uri.split('#', 1)[0]!;

/**
 * Whether `candidate` is one of the client's registered request_uris. Compared
 * without the fragment: a client changes it with the content (OIDC Dynamic
 * Registration §2), and Keyflow fetches the content every time.
 */
export function isRegisteredRequestUri(registered: readonly string[], candidate: string): boolean {
  const wanted = withoutFragment(candidate);
  return registered.some((r) => withoutFragment(r) === wanted);
}

/** Authorization parameters as the authorization endpoint and PAR read them: one string each, or the strings of a repeatable one. */
export type AuthorizationParams = Record<string, string | string[]>;

const text = z.string().max(8192);
const mustNotBeInside = z.never({ error: 'must not be inside a request object (RFC 9101 section 4)' }).optional();

/**
 * The claims Keyflow reads as authorization parameters, in the JSON types a
 * request object carries them in (OIDC Core §6.1: `max_age` a number, `claims`
 * an object; RFC 8707 `resource` one string or several). Other claims (JWT
 * claims, parameters Keyflow does not read) are left out.
 */
const ParameterClaims = z.object({
  client_id: text.optional(),
  response_type: text.optional(),
  redirect_uri: text.optional(),
  scope: text.optional(),
  state: text.optional(),
  nonce: text.optional(),
  code_challenge: text.optional(),
  code_challenge_method: text.optional(),
  prompt: text.optional(),
  acr_values: text.optional(),
  response_mode: text.optional(),
  max_age: z.union([z.number().int().min(0), text]).optional(),
  claims: z.union([text, z.record(z.string(), z.unknown())]).optional(),
  resource: z.union([text, z.array(text).max(20)]).optional(),
  // RFC 9449 §10: the DPoP key the code is bound to, inside a signed request as outside.
  dpop_jkt: text.optional(),
  request: mustNotBeInside,
  request_uri: mustNotBeInside,
});

export type ParamsOfObject = { ok: true; params: AuthorizationParams } | { ok: false; description: string };

/**
 * The authorization parameters of a verified request object (`claims`) sent
 * with `query`, the parameters outside it: the object's, with the query's
 * client_id (and its response_type where the object has none). See the merging
 * rule above.
 */
export function authorizationParamsOf(claims: Record<string, unknown>, query: { client_id?: unknown; response_type?: unknown }): ParamsOfObject {
  const parsed = ParameterClaims.safeParse(claims);
  if (!parsed.success) return { ok: false, description: `request object: ${zodProblems(parsed.error.issues).join('; ')}` };
  const {
    client_id: innerClientId,
    response_type: innerResponseType,
    max_age: maxAge,
    claims: claimsParam,
    request: _r,
    request_uri: _u,
    ...rest
  } = parsed.data;
  const clientId = query.client_id;
  if (typeof clientId !== 'string') return { ok: false, description: 'client_id must be sent outside the request object too, once' };
  if (innerClientId !== undefined && innerClientId !== clientId)
    return { ok: false, description: 'the client_id inside the request object differs from the client_id parameter' };
  const outerResponseType = query.response_type;
  if (outerResponseType !== undefined && typeof outerResponseType !== 'string') return { ok: false, description: 'response_type must appear at most once' };
  if (innerResponseType !== undefined && outerResponseType !== undefined && innerResponseType !== outerResponseType)
    return { ok: false, description: 'the response_type inside the request object differs from the response_type parameter' };

  const params: AuthorizationParams = { client_id: clientId };
  const responseType = innerResponseType ?? outerResponseType;
  if (responseType !== undefined) params.response_type = responseType;
  for (const [name, value] of Object.entries(rest)) if (value !== undefined) params[name] = value;
  if (maxAge !== undefined) params.max_age = String(maxAge);
  if (claimsParam !== undefined) params.claims = typeof claimsParam === 'string' ? claimsParam : JSON.stringify(claimsParam);
  return { ok: true, params };
}
