// Validation of an authorization request (RFC 6749 §4.1.1, OIDC Core §3.1.2.1
// and §3.2.2.1, RFC 7636), in a fixed order: the client and its redirect URI
// first (failures there must never redirect), then `response_mode` (how every
// later answer travels; its default and the modes allowed depend on
// `response_type`), then everything else (failures go back with `error`).
import { type RedirectUriEntry, checkRedirectUri } from './redirect-uri.js';
import { challengeProblem } from './pkce.js';
import { parseResources } from './resources.js';
import { parseResponseMode, refusalResponseMode, type ResponseMode, type ResponseTarget } from './response-mode.js';
import { clientMayUse, isImplicit, parseResponseType, type ResponseType } from './response-type.js';
import { parseClaimsParameter, type RequestedClaims } from './claims-request.js';
import { isKnownScope, parseBoundTeamScope, parseScopeParam } from './scopes.js';
import { NO_REDIRECT_FLOWS, usesRedirectFlows } from './grant-types.js';

export interface ClientForAuthorization {
  clientId: string;
  public: boolean;
  redirectUris: readonly RedirectUriEntry[];
  allowedScopes: readonly string[];
  /** RFC 8707 resources this client may name (absent: none). */
  allowedResources?: readonly string[];
  /** PKCE required (absent: required); only a confidential client may opt out. */
  requirePkce?: boolean;
  /** The response types it registered (response-type.ts: the implicit ones only if listed here); absent: code only. */
  responseTypes?: readonly string[];
  /** Its grant types (grant-types.ts); without a redirect-based one it has no business here. Absent: authorization_code. */
  grantTypes?: readonly string[] | null;
}

export interface ValidAuthorization {
  clientId: string;
  /** Absent on requests stored before the implicit flow: code. */
  responseType?: ResponseType;
  redirectUri: string;
  scope: string[];
  state: string | null;
  nonce: string | null;
  codeChallenge: string | null;
  prompt: string[];
  maxAge: number | null;
  acrValues: string[];
  /** RFC 8707 resource indicators: added to the access token's `aud` next to the issuer. */
  resources: string[];
  /** How the response goes back: query, fragment or form_post, or their JWT forms (response-mode.ts). */
  responseMode: ResponseMode;
  /** Individual claims asked for with the `claims` parameter (claims-request.ts); null when none. Absent on requests stored before. */
  claims?: RequestedClaims | null;
  /**
   * RFC 9449 §10: the thumbprint of the DPoP key the code is bound to (`dpop_jkt`,
   * or the key of a DPoP proof sent with the pushed request); null or absent: none.
   */
  dpopJkt?: string | null;
}

export type AuthorizationValidation =
  | { kind: 'ok'; params: ValidAuthorization }
  /** Shown on Keyflow's error page: the client or redirect URI cannot be trusted with a redirect. */
  | { kind: 'error-page'; title: string; message: string }
  /** Sent back to the (validated) redirect URI, in the request's response mode when that was valid. */
  | { kind: 'redirect-error'; clientId: string; redirectUri: string; responseMode: ResponseMode; state: string | null; error: string; description: string };

export const SUPPORTED_PROMPTS = ['none', 'login', 'consent'] as const;
export const SUPPORTED_ACR_VALUES = ['pwd', 'mfa'] as const;

const MAX_STATE = 2048;
const MAX_NONCE = 512;

type Query = Record<string, unknown>;

/** A single string parameter; `undefined` when absent, `null` when repeated or not a string. */
function single(query: Query, name: string): string | undefined | null {
  const v = query[name];
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : null;
}

/**
 * How the common relying-party libraries send PKCE, for the refusal of a
 * request without it (the recipes: docs/relying-parties.md). Characters an
 * error_description may hold (RFC 6749 §4.1.2.1: no quote, no backslash).
 */
export const PKCE_HINT =
  'Spring Security: OAuth2AuthorizationRequestCustomizers.withPkce() (Spring Boot 3; Boot 4 sends it); Keycloak: PKCE on in the identity provider; ' +
  'authlib: code_challenge_method S256; golang.org/x/oauth2: S256ChallengeOption; see the relying-party recipes of Keyflow (docs/relying-parties.md)';

/** The `request_uri` prefix of pushed authorization requests (RFC 9126 §2.2). */
export const PAR_REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';

/** Whether a front-channel request names a pushed request (client_id + request_uri) rather than carrying its parameters. */
export function isPushedRequestReference(query: Query): boolean {
  const uri = query.request_uri;
  return typeof uri === 'string' && uri.startsWith(PAR_REQUEST_URI_PREFIX);
}

type ParamsCheck = { ok: true; params: ValidAuthorization } | { ok: false; error: string; description: string; responseMode: ResponseMode };

/**
 * Every check after the client and its redirect URI, shared by the
 * authorization endpoint (errors go back to the client) and PAR (errors are JSON).
 */
function validateParams(query: Query, client: ClientForAuthorization, redirectUri: string, state: string | null): ParamsCheck {
  // The response type (checked below) decides the mode's default and which modes are allowed: one Keyflow does not know counts as code.
  const rawType = single(query, 'response_type');
  const responseType = typeof rawType === 'string' ? parseResponseType(rawType) : null;
  const modeType = responseType ?? 'code';
  // First, so that every later error goes back the way the client asked for; an error about the mode itself goes the
  // type's default way (its JWT form when a JWT mode was asked for: response-mode.ts).
  const rawMode = single(query, 'response_mode');
  const mode = rawMode === null ? { ok: false as const, description: 'response_mode must appear at most once' } : parseResponseMode(rawMode, modeType);
  if (!mode.ok) return { ok: false, error: 'invalid_request', description: mode.description, responseMode: refusalResponseMode(rawMode, modeType) };
  const responseMode = mode.mode;
  const fail = (error: string, description: string): ParamsCheck => ({ ok: false, error, description, responseMode });
  const rawState = single(query, 'state');

  for (const name of ['response_type', 'scope', 'state', 'nonce', 'code_challenge', 'code_challenge_method', 'prompt', 'max_age', 'acr_values', 'claims']) {
    if (single(query, name) === null) return fail('invalid_request', `${name} must appear at most once`);
  }
  if (rawState !== undefined && rawState !== null && rawState.length > MAX_STATE)
    return fail('invalid_request', `state must be at most ${MAX_STATE} characters`);
  // A request object becomes the parameters before these checks (request-object.ts): one left here was not read.
  if (query.request !== undefined || query.request_uri !== undefined) return fail('invalid_request', 'request and request_uri cannot be used here');

  if (!rawType) return fail('invalid_request', 'response_type is required');
  if (!responseType) return fail('unsupported_response_type', 'response_type must be code, id_token or id_token token');
  // RFC 6749 §4.2.2.1: Keyflow supports it (not unsupported_response_type), this client may not use it.
  if (!clientMayUse(client.responseTypes, responseType))
    return fail('unauthorized_client', `this application is not registered for response_type ${responseType}`);
  const implicit = isImplicit(responseType);

  // OIDC Core §11: offline_access is ignored unless a code is returned (no refresh token from the front channel).
  const scope = parseScopeParam(single(query, 'scope') ?? '').filter((s) => !implicit || s !== 'offline_access');
  if (scope.length === 0) return fail('invalid_scope', 'scope is required');
  // An ID token is an OpenID Connect answer (OIDC Core §3.2.2.1).
  if (implicit && !scope.includes('openid')) return fail('invalid_scope', `response_type ${responseType} needs the openid scope`);
  const unknown = scope.find((s) => !isKnownScope(s));
  if (unknown) return fail('invalid_scope', `unknown scope: ${unknown}`);
  const notAllowed = scope.find((s) => !client.allowedScopes.includes(s));
  if (notAllowed) return fail('invalid_scope', `this application may not request the scope ${notAllowed}`);
  // The team is the user's pick at consent: an app asks for the unbound form only.
  const bound = scope.find((s) => parseBoundTeamScope(s));
  if (bound) return fail('invalid_scope', `ask for ${bound.replace(/^team:[^:]+:/, 'team:')}: the user picks the team at consent`);

  // RFC 8707: repeatable; each an absolute URI without fragment.
  const resources = parseResources(query.resource);
  if (!resources.ok) return fail(resources.error, resources.description);
  const notAllowedResource = resources.resources.find((r) => !(client.allowedResources ?? []).includes(r));
  if (notAllowedResource) return fail('invalid_target', `this application may not ask for the resource ${notAllowedResource}`);

  // PKCE protects a code (RFC 7636): the implicit flow has none, and ignores a code_challenge.
  const challenge = implicit ? undefined : single(query, 'code_challenge');
  if (!implicit) {
    const pkce = challengeProblem(challenge, single(query, 'code_challenge_method'));
    if (pkce) return fail('invalid_request', pkce);
    if (challenge === undefined && client.public) return fail('invalid_request', `public clients must use PKCE (code_challenge with S256). ${PKCE_HINT}`);
    if (challenge === undefined && client.requirePkce !== false)
      return fail('invalid_request', `this application must use PKCE (code_challenge with S256). ${PKCE_HINT}`);
  }

  const nonce = single(query, 'nonce');
  // OIDC Core §3.2.2.1: with no code to redeem, the nonce is what ties the ID token to the RP's own request.
  if (implicit && nonce === undefined) return fail('invalid_request', `nonce is required for response_type ${responseType}`);
  if (nonce !== undefined && (nonce!.length === 0 || nonce!.length > MAX_NONCE)) return fail('invalid_request', `nonce must be 1 to ${MAX_NONCE} characters`);

  const prompt = parseScopeParam(single(query, 'prompt') ?? '');
  const badPrompt = prompt.find((p) => !(SUPPORTED_PROMPTS as readonly string[]).includes(p));
  if (badPrompt) return fail('invalid_request', `unsupported prompt value: ${badPrompt}`);
  if (prompt.includes('none') && prompt.length > 1) return fail('invalid_request', 'prompt=none cannot be combined with other values');

  const maxAgeRaw = single(query, 'max_age');
  let maxAge: number | null = null;
  if (maxAgeRaw !== undefined) {
    if (!/^\d{1,9}$/.test(maxAgeRaw!)) return fail('invalid_request', 'max_age must be a non-negative integer (seconds)');
    maxAge = Number(maxAgeRaw);
  }

  const claims = parseClaimsParameter(single(query, 'claims') ?? undefined, client.allowedScopes, SUPPORTED_ACR_VALUES);
  if (!claims.ok) return fail('invalid_request', claims.description);

  // RFC 9449 §10: a JWK SHA-256 thumbprint (RFC 7638), base64url.
  const dpopJkt = single(query, 'dpop_jkt');
  if (dpopJkt === null || (dpopJkt !== undefined && !/^[A-Za-z0-9_-]{43}$/.test(dpopJkt)))
    return fail('invalid_request', 'dpop_jkt must be a JWK SHA-256 thumbprint (43 base64url characters), once');

  // acr_values are voluntary (OIDC Core §3.1.2.1): unknown values are ignored. An acr asked for in `claims` joins them.
  const acrValues = [
    ...new Set([
      ...parseScopeParam(single(query, 'acr_values') ?? '').filter((v) => (SUPPORTED_ACR_VALUES as readonly string[]).includes(v)),
      ...(claims.claims?.acr?.values ?? []),
    ]),
  ];

  return {
    ok: true,
    params: {
      clientId: client.clientId,
      responseType,
      redirectUri,
      scope,
      state,
      nonce: nonce ?? null,
      codeChallenge: challenge ?? null,
      prompt,
      maxAge,
      acrValues,
      resources: resources.resources,
      responseMode,
      claims: claims.claims,
      dpopJkt: dpopJkt ?? null,
    },
  };
}

function parseState(query: Query): string | null {
  const rawState = single(query, 'state');
  return typeof rawState === 'string' ? rawState.slice(0, MAX_STATE) : null;
}

/** The authorization endpoint's request (front channel): client and redirect URI failures never redirect. */
export function validateAuthorizationRequest(query: Query, client: ClientForAuthorization | null): AuthorizationValidation {
  const clientId = single(query, 'client_id');
  if (!clientId) return { kind: 'error-page', title: 'Unknown application', message: 'The request does not name a valid client_id.' };
  if (!client) return { kind: 'error-page', title: 'Unknown application', message: 'No application is registered with this client_id.' };
  // Before the redirect URI: such a client may have none, and none of its own is trusted with an answer.
  if (!usesRedirectFlows(client)) return { kind: 'error-page', title: 'Not a browser sign-in application', message: NO_REDIRECT_FLOWS };
  const redirectUri = single(query, 'redirect_uri');
  if (!redirectUri) return { kind: 'error-page', title: 'Invalid redirect URI', message: 'The request has no valid redirect_uri.' };
  const decision = checkRedirectUri(client.redirectUris, redirectUri);
  if (!decision.ok) return { kind: 'error-page', title: 'Invalid redirect URI', message: `The redirect_uri cannot be used: ${decision.reason}.` };

  const state = parseState(query);
  const checked = validateParams(query, client, redirectUri, state);
  if (!checked.ok)
    return {
      kind: 'redirect-error',
      clientId: client.clientId,
      redirectUri,
      responseMode: checked.responseMode,
      state,
      error: checked.error,
      description: checked.description,
    };
  return { kind: 'ok', params: checked.params };
}

/**
 * Where a refusal decided before these checks goes (a request object that
 * cannot be used): the redirect URI named in `reply` when it is one of the
 * client's, in its response mode (else the default one: refusalResponseMode)
 * and with its state; null when there is none the client registered (the
 * caller shows its error page).
 */
export function refusalTarget(reply: Query, client: ClientForAuthorization): ResponseTarget | null {
  const redirectUri = single(reply, 'redirect_uri');
  if (!redirectUri || !usesRedirectFlows(client) || !checkRedirectUri(client.redirectUris, redirectUri).ok) return null;
  const rawType = single(reply, 'response_type');
  const type = (rawType && parseResponseType(rawType)) || 'code';
  const rawMode = single(reply, 'response_mode') ?? undefined;
  const mode = parseResponseMode(rawMode, type);
  return { clientId: client.clientId, redirectUri, responseMode: mode.ok ? mode.mode : refusalResponseMode(rawMode, type), state: parseState(reply) };
}

export type PushedValidation = { kind: 'ok'; params: ValidAuthorization } | { kind: 'error'; error: string; description: string };

/** RFC 9126 §2.1: `request_uri` is never pushed (nor fetched to be): the refusal, or null. */
export const pushedRequestUriProblem = (body: Query): string | null =>
  body.request_uri !== undefined ? 'request_uri must not be pushed (RFC 9126 section 2.1)' : null;

/**
 * A pushed authorization request (RFC 9126 §2.1) of an authenticated client:
 * the same checks as the authorization endpoint, every failure a JSON error.
 */
export function validatePushedAuthorizationRequest(body: Query, client: ClientForAuthorization): PushedValidation {
  const fail = (error: string, description: string): PushedValidation => ({ kind: 'error', error, description });
  const clientId = single(body, 'client_id');
  if (clientId === null) return fail('invalid_request', 'client_id must appear at most once');
  if (clientId !== undefined && clientId !== client.clientId) return fail('invalid_request', 'client_id does not match the authenticated client');
  const pushedUri = pushedRequestUriProblem(body);
  if (pushedUri) return fail('invalid_request', pushedUri);
  if (!usesRedirectFlows(client)) return fail('unauthorized_client', NO_REDIRECT_FLOWS);
  const redirectUri = single(body, 'redirect_uri');
  if (!redirectUri) return fail('invalid_request', 'redirect_uri is required');
  const decision = checkRedirectUri(client.redirectUris, redirectUri);
  if (!decision.ok) return fail('invalid_request', `the redirect_uri cannot be used: ${decision.reason}`);
  const checked = validateParams(body, client, redirectUri, parseState(body));
  return checked.ok ? { kind: 'ok', params: checked.params } : fail(checked.error, checked.description);
}

/** `redirectUri` with `params` added to its query (null and undefined ones left out). */
export function buildRedirect(redirectUri: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined) url.searchParams.append(k, v);
  return url.href;
}
