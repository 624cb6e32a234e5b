// Client metadata as clients and users send it, mapped onto the client model
// (model/clients.ts, whose NewClientInput does the field validation):
// - RFC 7591 / 7592 registration metadata (POST /api/oauth/register and the
//   registration_client_uri), and the client information document;
// - the app API's JSON (/api/oauth/me/apps), snake_case, every Application
//   field (docs/apps.md, app API).
// Pure: no I/O.
import { z } from 'zod';
import {
  type IdTokenAlg,
  NewClientInput,
  OIDC_FIELDS,
  TOKEN_ENDPOINT_AUTH_METHODS,
  isClientActive,
  type ClientDoc,
  type ClientExtras,
  type TokenEndpointAuthMethod,
} from './clients.js';
import { REDIRECT_URI_TYPES } from './redirect-uri.js';
import { zodProblems } from './errors.js';
import { FAPI_PROFILES, FAPI2_DEFAULT_SIGNING_ALG, fapi2GrantRefusal, mayUseGrant, type FapiProfile } from './fapi2.js';
import { requestObjectAlgOf } from './request-object.js';
import { IMPLICIT_GRANT_TYPE, isImplicit, parseResponseType, RESPONSE_TYPES } from './response-type.js';
import { parseScopeParam } from './scopes.js';

// Model field names as the API spells them, for error descriptions.
const SNAKE: Record<string, string> = {
  name: 'name',
  description: 'description',
  redirectUris: 'redirect_uris',
  allowedScopes: 'allowed_scopes',
  public: 'public',
  tokenEndpointAuthMethod: 'token_endpoint_auth_method',
  oidcFields: 'oidc_fields',
  postLogoutRedirectUris: 'post_logout_redirect_uris',
  backchannelLogoutUri: 'backchannel_logout_uri',
  jwks: 'jwks',
  jwksUri: 'jwks_uri',
  idTokenSignedResponseAlg: 'id_token_signed_response_alg',
  userinfoSignedResponseAlg: 'userinfo_signed_response_alg',
  introspectionSignedResponseAlg: 'introspection_signed_response_alg',
  requirePushedAuthorizationRequests: 'require_pushed_authorization_requests',
  fapiProfile: 'fapi_profile',
  requireSignedRequestObject: 'require_signed_request_object',
  allowedResources: 'allowed_resources',
  requirePkce: 'require_pkce',
  requestObjectSigningAlg: 'request_object_signing_alg',
  requestUris: 'request_uris',
  authorizationSignedResponseAlg: 'authorization_signed_response_alg',
  accessTokenSignedResponseAlg: 'access_token_signed_response_alg',
  machineAccess: 'machine_access',
};

type Issue = { path: ReadonlyArray<PropertyKey>; message: string };
const describe = (issues: ReadonlyArray<Issue>, rename: Record<string, string> = SNAKE) =>
  zodProblems(issues.map((i) => ({ ...i, path: i.path.map((p, n) => (n === 0 && typeof p === 'string' ? (rename[p] ?? p) : p)) }))).join('; ');

export type MappingResult = { ok: true; input: NewClientInput } | { ok: false; error: string; description: string };

/** Runs the model's validation, so that every surface refuses exactly what the model refuses. */
function validated(input: NewClientInput, classify: (issues: ReadonlyArray<Issue>) => string, rename?: Record<string, string>): MappingResult {
  const parsed = NewClientInput.safeParse(input);
  if (parsed.success) return { ok: true, input };
  return { ok: false, error: classify(parsed.error.issues), description: describe(parsed.error.issues, rename) };
}

// ---------------------------------------------------------------- RFC 7591

/**
 * The ID token algorithm of a client that asked for `asked` (or named none):
 * one this deployment offers, or the first it offers (ML-DSA-65 where it is
 * offered: the default of apps made in Keyflow). Dynamic registration passes
 * RS256 for a client that names none (registrationToClient).
 */
export function idTokenAlgOf(asked: string | undefined, offered: readonly IdTokenAlg[]): { ok: true; alg: IdTokenAlg } | { ok: false; description: string } {
  if (asked === undefined) return { ok: true, alg: offered[0]! };
  const alg = offered.find((a) => a === asked);
  return alg ? { ok: true, alg } : { ok: false, description: `id_token_signed_response_alg must be one of ${offered.join(', ')}` };
}

/**
 * The scopes of a client registered without `scope` (RFC 7591 §2 leaves the
 * default to the server): those OpenID Connect defines, rather than the app
 * model's `openid profile email`, so that a relying party that registers itself
 * may ask for any of them. The user still consents to each it asks for.
 */
export const REGISTRATION_DEFAULT_SCOPES = ['openid', 'profile', 'email', 'address', 'phone', 'offline_access'] as const;

/**
 * The UserInfo signing algorithm of a client that asked for `asked`: one this
 * deployment offers (those of ID tokens), or null — plain JSON — for `none`
 * or nothing named (OIDC Dynamic Registration §2).
 */
export function userinfoAlgOf(
  asked: string | null | undefined,
  offered: readonly IdTokenAlg[],
): { ok: true; alg: IdTokenAlg | null } | { ok: false; description: string } {
  if (asked === undefined || asked === null || asked === 'none') return { ok: true, alg: null };
  const alg = offered.find((a) => a === asked);
  return alg ? { ok: true, alg } : { ok: false, description: `userinfo_signed_response_alg must be one of ${offered.join(', ')} or none` };
}

type SignedResponseAlg = { ok: true; alg: IdTokenAlg | null } | { ok: false; description: string };

/**
 * The algorithm of a signed response a client asked for with metadata `field`:
 * one this deployment signs with (those of ID tokens), or null for nothing
 * named — the response's own default (RS256) then applies when signing, and
 * is not stored as if the client had asked for it. `none` is refused: these
 * responses are signed or not JWTs at all.
 */
function signedResponseAlgOf(field: string, asked: string | null | undefined, offered: readonly IdTokenAlg[]): SignedResponseAlg {
  if (asked === undefined || asked === null) return { ok: true, alg: null };
  const alg = offered.find((a) => a === asked);
  return alg ? { ok: true, alg } : { ok: false, description: `${field} must be one of ${offered.join(', ')}` };
}

/** RFC 9701 §6: the algorithm of the client's signed introspection responses. */
export const introspectionAlgOf = (asked: string | null | undefined, offered: readonly IdTokenAlg[]) =>
  signedResponseAlgOf('introspection_signed_response_alg', asked, offered);

/** The algorithm of the client's access tokens (access-token-alg.ts): null, the resource servers' default (RS256; PS256 for FAPI 2.0). */
export const accessTokenAlgOf = (asked: string | null | undefined, offered: readonly IdTokenAlg[]) =>
  signedResponseAlgOf('access_token_signed_response_alg', asked, offered);

/** JARM: the algorithm of the client's JWT authorization responses. */
export const authorizationAlgOf = (asked: string | null | undefined, offered: readonly IdTokenAlg[]) =>
  signedResponseAlgOf('authorization_signed_response_alg', asked, offered);

/** The security profile a client asked for (`fapi2`), or null for none. */
export function fapiProfileOf(asked: string | null | undefined): { ok: true; profile: FapiProfile | null } | { ok: false; description: string } {
  if (asked === undefined || asked === null) return { ok: true, profile: null };
  const profile = FAPI_PROFILES.find((p) => p === asked);
  return profile ? { ok: true, profile } : { ok: false, description: `fapi_profile must be ${FAPI_PROFILES.join(' or ')} (or null)` };
}

const uri = z.string().max(2048);
const RegistrationMetadata = z.object({
  client_name: z.string({ error: 'is required' }),
  redirect_uris: z.array(z.string()).max(50).optional(),
  scope: z.string().max(4000).optional(),
  token_endpoint_auth_method: z.string().optional(),
  jwks: z.unknown().optional(),
  jwks_uri: uri.optional(),
  grant_types: z.array(z.string()).max(10).optional(),
  response_types: z.array(z.string()).max(10).optional(),
  post_logout_redirect_uris: z.array(uri).max(50).optional(),
  backchannel_logout_uri: uri.optional(),
  id_token_signed_response_alg: z.string().optional(),
  userinfo_signed_response_alg: z.string().optional(),
  introspection_signed_response_alg: z.string().optional(),
  request_object_signing_alg: z.string().optional(),
  request_uris: z.array(z.string()).max(20).optional(),
  client_uri: uri.optional(),
  logo_uri: uri.optional(),
  policy_uri: uri.optional(),
  tos_uri: uri.optional(),
  require_pushed_authorization_requests: z.boolean().optional(),
  require_signed_request_object: z.boolean().optional(),
  // A Keyflow extension: the security profile the client is held to ("fapi2").
  fapi_profile: z.string().nullable().optional(),
  // A Keyflow extension, like RFC 9126's require_pushed_authorization_requests: a confidential client may opt out of PKCE.
  require_pkce: z.boolean().optional(),
  authorization_signed_response_alg: z.string().optional(),
  // A Keyflow extension: the algorithm of the client's access tokens (RS256 when none is named).
  access_token_signed_response_alg: z.string().optional(),
  // RFC 7592 §2.2: sent back on update; checked by the route.
  client_id: z.string().optional(),
  client_secret: z.string().optional(),
});
export type RegistrationMetadata = z.infer<typeof RegistrationMetadata>;

const REGISTRATION_NAMES: Record<string, string> = {
  ...SNAKE,
  name: 'client_name',
  allowedScopes: 'scope',
  redirectUris: 'redirect_uris',
};

/** A link a page may show (client_uri, policy_uri, tos_uri): absolute http(s), no fragment. */
export function isHttpUri(v: string): boolean {
  try {
    return ['https:', 'http:'].includes(new URL(v).protocol) && !v.includes('#');
  } catch {
    return false;
  }
}

// An https origin whose host is DNS labels or an IPv4 address, and a port: exactly what a CSP
// host-source can name, and nothing (a space, ";", ",", a quote) that could end the directive.
// The separator "." is outside the label class: linear.
const CSP_HTTPS_ORIGIN = /^https:\/\/[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::\d{1,5})?$/;

/**
 * The origin a client's logo is loaded from, or null when the logo cannot be
 * shown: https only (a page served over https loads no plain-http image, and
 * the origin goes into the page's CSP img-src), no credentials, no fragment.
 * The one rule for registration's `logo_uri` and for the pages that show it.
 */
export function logoOrigin(logoUri: string): string | null {
  try {
    const url = new URL(logoUri);
    if (url.protocol !== 'https:' || url.username || url.password || logoUri.includes('#')) return null;
    return CSP_HTTPS_ORIGIN.test(url.origin) ? url.origin : null;
  } catch {
    return null;
  }
}

/** What a registration sets beside NewClientInput: the client's extras but its registration access token (the caller makes it). */
export type RegistrationExtras = Omit<ClientExtras, 'registrationTokenHash'>;

export type RegistrationMapping =
  | { ok: true; input: NewClientInput; extras: RegistrationExtras; metadata: RegistrationMetadata }
  | { ok: false; error: 'invalid_redirect_uri' | 'invalid_client_metadata'; description: string };

/**
 * RFC 7591 §2 metadata → the client model. `supportedGrantTypes` is what
 * Keyflow serves (the token endpoint's grant types, and `implicit`);
 * `requirePkce` the deployment's default for a confidential client that does
 * not say (REGISTRATION_REQUIRE_PKCE; a public client always uses PKCE).
 * `response_types` is enforced for the implicit ones (response-type.ts): only
 * a client that lists them may use them. Errors: `invalid_redirect_uri` for a
 * redirect URI, `invalid_client_metadata` for anything else. Unknown fields
 * are ignored (§2).
 */
export function registrationToClient(
  body: unknown,
  ownerUserId: string,
  supportedGrantTypes: readonly string[],
  idTokenAlgs: readonly IdTokenAlg[],
  requirePkce: boolean,
  /** FAPI_PROFILE_DEFAULT: the profile when the metadata names none (`fapi_profile: null` is none). */
  fapiDefault: FapiProfile | null = null,
): RegistrationMapping {
  const bad = (description: string): RegistrationMapping => ({ ok: false, error: 'invalid_client_metadata', description });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return bad('the body must be a JSON object of client metadata');
  const parsed = RegistrationMetadata.safeParse(body);
  if (!parsed.success) {
    const redirect = parsed.error.issues.some((i) => i.path[0] === 'redirect_uris');
    return { ok: false, error: redirect ? 'invalid_redirect_uri' : 'invalid_client_metadata', description: describe(parsed.error.issues, {}) };
  }
  const m = parsed.data;
  for (const [i, u] of (m.redirect_uris ?? []).entries()) {
    if (typeof u !== 'string' || !u) return { ok: false, error: 'invalid_redirect_uri', description: `redirect_uris.${i}: must be a URI` };
  }
  const method = m.token_endpoint_auth_method ?? 'client_secret_basic';
  if (!(TOKEN_ENDPOINT_AUTH_METHODS as readonly string[]).includes(method)) {
    return bad(`token_endpoint_auth_method must be one of ${TOKEN_ENDPOINT_AUTH_METHODS.join(', ')}`);
  }
  if (m.jwks !== undefined && m.jwks_uri !== undefined) return bad('jwks and jwks_uri are mutually exclusive');
  if (m.jwks !== undefined && (typeof m.jwks !== 'object' || m.jwks === null || !Array.isArray((m.jwks as { keys?: unknown }).keys))) {
    return bad('jwks must be a JWK Set: {"keys": [...]}');
  }
  const grantTypes = [...new Set(m.grant_types ?? ['authorization_code'])];
  const unsupportedGrant = grantTypes.find((g) => !supportedGrantTypes.includes(g));
  if (unsupportedGrant) return bad(`grant_type ${unsupportedGrant} is not supported; supported: ${supportedGrantTypes.join(', ')}`);
  const askedResponseTypes = m.response_types ?? (grantTypes.includes('authorization_code') ? ['code'] : []);
  const unsupportedResponse = askedResponseTypes.find((r) => parseResponseType(r) === null);
  if (unsupportedResponse !== undefined) return bad(`response_type ${unsupportedResponse} is not supported; supported: ${RESPONSE_TYPES.join(', ')}`);
  // Kept in their canonical spelling (`token id_token` is `id_token token`), the one the authorization endpoint compares.
  const responseTypes = [...new Set(askedResponseTypes.map((r) => parseResponseType(r)!))];
  if (responseTypes.includes('code') !== grantTypes.includes('authorization_code')) {
    return bad('response_types code and grant_types authorization_code go together (RFC 7591 section 2.1)');
  }
  if (responseTypes.some(isImplicit) !== grantTypes.includes(IMPLICIT_GRANT_TYPE)) {
    return bad('response_types id_token and id_token token go together with grant_types implicit (OpenID Connect Dynamic Registration section 2)');
  }
  const fapiProfile = m.fapi_profile === undefined ? ({ ok: true, profile: fapiDefault } as const) : fapiProfileOf(m.fapi_profile);
  if (!fapiProfile.ok) return bad(fapiProfile.description);
  // FAPI 2.0 (fapi2.ts): code only, and the profile's algorithm unless the client names another.
  if (fapiProfile.profile && responseTypes.some(isImplicit)) return bad('a FAPI 2.0 client uses response_type code only');
  const outsideProfile = grantTypes.find((g) => !mayUseGrant({ fapiProfile: fapiProfile.profile }, g));
  if (outsideProfile) return bad(fapi2GrantRefusal(outsideProfile));
  // OIDC Dynamic Registration §2: a client that names no ID token algorithm gets RS256 (the spec's
  // path for legacy relying parties; apps made in Keyflow get ML-DSA-65); FAPI 2.0 the profile's.
  const alg = idTokenAlgOf(m.id_token_signed_response_alg ?? (fapiProfile.profile ? FAPI2_DEFAULT_SIGNING_ALG : 'RS256'), idTokenAlgs);
  if (!alg.ok) return bad(alg.description);
  const userinfoAlg = userinfoAlgOf(m.userinfo_signed_response_alg, idTokenAlgs);
  if (!userinfoAlg.ok) return bad(userinfoAlg.description);
  const introspectionAlg = introspectionAlgOf(m.introspection_signed_response_alg, idTokenAlgs);
  if (!introspectionAlg.ok) return bad(introspectionAlg.description);
  const requestObjectAlg = requestObjectAlgOf(m.request_object_signing_alg);
  if (!requestObjectAlg.ok) return bad(requestObjectAlg.description);
  const authorizationAlg = authorizationAlgOf(m.authorization_signed_response_alg, idTokenAlgs);
  if (!authorizationAlg.ok) return bad(authorizationAlg.description);
  const accessTokenAlg = accessTokenAlgOf(m.access_token_signed_response_alg, idTokenAlgs);
  if (!accessTokenAlg.ok) return bad(accessTokenAlg.description);
  // OIDC Dynamic Registration §2: pages link to these.
  for (const field of ['client_uri', 'policy_uri', 'tos_uri'] as const) {
    if (m[field] !== undefined && !isHttpUri(m[field])) return bad(`${field}: must be an absolute http(s) URI without fragment`);
  }
  if (m.logo_uri !== undefined && !logoOrigin(m.logo_uri)) {
    return bad('logo_uri: must be an absolute https URI (a host name or IPv4 address) without credentials or fragment');
  }
  const input: NewClientInput = {
    name: m.client_name,
    redirectUris: (m.redirect_uris ?? []).map((value) => ({ type: 'equals' as const, value })),
    allowedScopes: m.scope !== undefined ? parseScopeParam(m.scope) : [...REGISTRATION_DEFAULT_SCOPES],
    public: method === 'none',
    tokenEndpointAuthMethod: method as TokenEndpointAuthMethod,
    postLogoutRedirectUris: m.post_logout_redirect_uris ?? [],
    backchannelLogoutUri: m.backchannel_logout_uri ?? null,
    jwks: (m.jwks as NewClientInput['jwks']) ?? null,
    jwksUri: m.jwks_uri ?? null,
    idTokenSignedResponseAlg: alg.alg,
    userinfoSignedResponseAlg: userinfoAlg.alg,
    introspectionSignedResponseAlg: introspectionAlg.alg,
    requestObjectSigningAlg: requestObjectAlg.alg,
    requestUris: m.request_uris ?? [],
    authorizationSignedResponseAlg: authorizationAlg.alg,
    accessTokenSignedResponseAlg: accessTokenAlg.alg,
    requirePushedAuthorizationRequests: m.require_pushed_authorization_requests ?? false,
    fapiProfile: fapiProfile.profile,
    requireSignedRequestObject: m.require_signed_request_object ?? false,
    // A public client asking for false is refused by the model; one that does not say uses PKCE.
    requirePkce: m.require_pkce ?? (method === 'none' || requirePkce),
    isVerified: false,
    ownerUserId,
    // RFC 7591 §2: redirect_uris only for the redirect-based flows (a device or client credentials client names none).
    grantTypes,
  };
  const result = validated(
    input,
    (issues) => (issues.some((i) => i.path[0] === 'redirectUris') ? 'invalid_redirect_uri' : 'invalid_client_metadata'),
    REGISTRATION_NAMES,
  );
  if (!result.ok) return { ok: false, error: result.error as 'invalid_redirect_uri' | 'invalid_client_metadata', description: result.description };
  const extras: RegistrationExtras = {
    grantTypes,
    responseTypes,
    clientUri: m.client_uri ?? null,
    logoUri: m.logo_uri ?? null,
    policyUri: m.policy_uri ?? null,
    tosUri: m.tos_uri ?? null,
  };
  return { ok: true, input, extras, metadata: m };
}

/** The RFC 7591 §3.2.1 client information document (without the one-time secrets, which the caller adds). */
export function clientInformation(client: ClientDoc): Record<string, unknown> {
  const doc: Record<string, unknown> = {
    client_id: client._id,
    client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
    client_name: client.name,
    redirect_uris: client.redirectUris.filter((r) => r.type === 'equals').map((r) => r.value),
    scope: client.allowedScopes.join(' '),
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    grant_types: client.grantTypes ?? ['authorization_code'],
    response_types: client.responseTypes ?? ['code'],
    id_token_signed_response_alg: client.idTokenSignedResponseAlg,
    require_pkce: client.requirePkce ?? true,
  };
  if (client.userinfoSignedResponseAlg) doc.userinfo_signed_response_alg = client.userinfoSignedResponseAlg;
  if (client.introspectionSignedResponseAlg) doc.introspection_signed_response_alg = client.introspectionSignedResponseAlg;
  if (client.requestObjectSigningAlg) doc.request_object_signing_alg = client.requestObjectSigningAlg;
  if (client.requestUris?.length) doc.request_uris = client.requestUris;
  if (!client.public) doc.client_secret_expires_at = 0;
  if (client.postLogoutRedirectUris.length) doc.post_logout_redirect_uris = client.postLogoutRedirectUris;
  if (client.backchannelLogoutUri) doc.backchannel_logout_uri = client.backchannelLogoutUri;
  if (client.jwks) doc.jwks = client.jwks;
  if (client.jwksUri) doc.jwks_uri = client.jwksUri;
  if (client.clientUri) doc.client_uri = client.clientUri;
  if (client.logoUri) doc.logo_uri = client.logoUri;
  if (client.policyUri) doc.policy_uri = client.policyUri;
  if (client.tosUri) doc.tos_uri = client.tosUri;
  if (client.requirePushedAuthorizationRequests) doc.require_pushed_authorization_requests = true;
  if (client.fapiProfile) doc.fapi_profile = client.fapiProfile;
  if (client.requireSignedRequestObject) doc.require_signed_request_object = true;
  // Only when registered: JARM's RS256 default is applied when signing, and listing it would say the client asked for JWT responses.
  if (client.authorizationSignedResponseAlg) doc.authorization_signed_response_alg = client.authorizationSignedResponseAlg;
  if (client.accessTokenSignedResponseAlg) doc.access_token_signed_response_alg = client.accessTokenSignedResponseAlg;
  return doc;
}

// ---------------------------------------------------------------- app API

const redirectUriInput = z.union([
  z.string().transform((value) => ({ type: 'equals' as const, value })),
  z.object({ type: z.enum(REDIRECT_URI_TYPES).default('equals'), value: z.string() }).strict(),
]);

/** What a user may set on an app (JSON, snake_case). `client_id`, `is_verified` and the secret are not settable. */
const AppFields = z
  .object({
    name: z.string(),
    description: z.string(),
    public: z.boolean(),
    redirect_uris: z.array(redirectUriInput).max(50),
    allowed_scopes: z.array(z.string()).max(200),
    oidc_fields: z.array(z.enum(OIDC_FIELDS)),
    post_logout_redirect_uris: z.array(z.string()).max(50),
    backchannel_logout_uri: z.string().nullable(),
    token_endpoint_auth_method: z.enum(TOKEN_ENDPOINT_AUTH_METHODS),
    jwks: z.object({ keys: z.array(z.record(z.string(), z.unknown())) }).nullable(),
    jwks_uri: z.string().nullable(),
    id_token_signed_response_alg: z.string(),
    userinfo_signed_response_alg: z.string().nullable(),
    introspection_signed_response_alg: z.string().nullable(),
    request_object_signing_alg: z.string().nullable(),
    request_uris: z.array(z.string()).max(20),
    require_pushed_authorization_requests: z.boolean(),
    fapi_profile: z.string().nullable(),
    require_signed_request_object: z.boolean(),
    allowed_resources: z.array(z.string()).max(50),
    require_pkce: z.boolean(),
    authorization_signed_response_alg: z.string().nullable(),
    access_token_signed_response_alg: z.string().nullable(),
    // Read-only: accepted unchanged only (appToClient).
    machine_access: z.unknown(),
  })
  .partial()
  .strict();

const READ_ONLY = ['client_id', 'client_secret', 'is_verified', 'is_active', 'owner_user_id', 'created_at', 'updated_at'];

/**
 * The model input of an app as it stands (for PATCH: the patch is applied on
 * top). Every stored field is carried over, including model fields this module
 * does not know; NewClientInput drops what is not a model field.
 */
function currentInput(c: ClientDoc): NewClientInput {
  const {
    _id: _i,
    secretHash: _s,
    registrationTokenHash: _t,
    createdAt: _c,
    updatedAt: _u,
    grantTypes: _g,
    responseTypes: _r,
    clientUri: _cu,
    logoUri: _l,
    policyUri: _p,
    tosUri: _tos,
    deactivatedAt: _d,
    ...model
  } = c;
  return model;
}

/**
 * App API JSON → the client model: a new app of `ownerUserId` (current
 * undefined) or the current app with the given fields changed. Errors are
 * `invalid_request` with a description naming the fields.
 */
export function appToClient(
  body: unknown,
  ownerUserId: string,
  idTokenAlgs: readonly IdTokenAlg[],
  current?: ClientDoc,
  /** FAPI_PROFILE_DEFAULT: the profile of a new app that names none. */
  fapiDefault: FapiProfile | null = null,
): MappingResult {
  const bad = (description: string): MappingResult => ({ ok: false, error: 'invalid_request', description });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return bad('the body must be a JSON object');
  const readOnly = READ_ONLY.filter((k) => k in body);
  if (readOnly.length) return bad(`${readOnly.join(', ')} cannot be set here${readOnly.includes('is_verified') ? ' (only operators verify apps)' : ''}`);
  // Shown by the API, so it may come back as it is; only operators change it.
  if ('machine_access' in body && JSON.stringify(body.machine_access) !== JSON.stringify(current?.machineAccess ?? []))
    return bad('machine_access cannot be set here (only operators allow an app machine access, for client_credentials)');
  const parsed = AppFields.safeParse(body);
  if (!parsed.success) return bad(describe(parsed.error.issues, {}));
  const a = parsed.data;
  if (!current && a.name === undefined) return bad('name: is required');
  const base: NewClientInput = current
    ? currentInput(current)
    : { name: '', redirectUris: [], ownerUserId, isVerified: false, idTokenSignedResponseAlg: idTokenAlgs[0] };
  const input: NewClientInput = { ...base };
  if (a.name !== undefined) input.name = a.name;
  if (a.description !== undefined) input.description = a.description;
  if (a.redirect_uris !== undefined) input.redirectUris = a.redirect_uris;
  if (a.allowed_scopes !== undefined) input.allowedScopes = a.allowed_scopes;
  if (a.oidc_fields !== undefined) input.oidcFields = a.oidc_fields;
  if (a.post_logout_redirect_uris !== undefined) input.postLogoutRedirectUris = a.post_logout_redirect_uris;
  if (a.backchannel_logout_uri !== undefined) input.backchannelLogoutUri = a.backchannel_logout_uri;
  if (a.jwks !== undefined) input.jwks = a.jwks;
  if (a.jwks_uri !== undefined) input.jwksUri = a.jwks_uri;
  if (a.id_token_signed_response_alg !== undefined) {
    const alg = idTokenAlgOf(a.id_token_signed_response_alg, idTokenAlgs);
    if (!alg.ok) return bad(alg.description);
    input.idTokenSignedResponseAlg = alg.alg;
  }
  if (a.userinfo_signed_response_alg !== undefined) {
    const alg = userinfoAlgOf(a.userinfo_signed_response_alg, idTokenAlgs);
    if (!alg.ok) return bad(alg.description);
    input.userinfoSignedResponseAlg = alg.alg;
  }
  if (a.introspection_signed_response_alg !== undefined) {
    const alg = introspectionAlgOf(a.introspection_signed_response_alg, idTokenAlgs);
    if (!alg.ok) return bad(alg.description);
    input.introspectionSignedResponseAlg = alg.alg;
  }
  if (a.request_object_signing_alg !== undefined) {
    const alg = requestObjectAlgOf(a.request_object_signing_alg);
    if (!alg.ok) return bad(alg.description);
    input.requestObjectSigningAlg = alg.alg;
  }
  if (a.request_uris !== undefined) input.requestUris = a.request_uris;
  if (a.require_pushed_authorization_requests !== undefined) input.requirePushedAuthorizationRequests = a.require_pushed_authorization_requests;
  if (a.require_signed_request_object !== undefined) input.requireSignedRequestObject = a.require_signed_request_object;
  // A new app without fapi_profile gets the site's default (FAPI_PROFILE_DEFAULT); a change keeps what it had.
  if (a.fapi_profile !== undefined || (!current && fapiDefault)) {
    const profile = a.fapi_profile === undefined ? ({ ok: true, profile: fapiDefault } as const) : fapiProfileOf(a.fapi_profile);
    if (!profile.ok) return bad(profile.description);
    input.fapiProfile = profile.profile;
    // A new FAPI 2.0 app signs with the profile's algorithm unless it names another.
    if (!current && profile.profile && a.id_token_signed_response_alg === undefined) input.idTokenSignedResponseAlg = FAPI2_DEFAULT_SIGNING_ALG;
  }
  if (a.allowed_resources !== undefined) input.allowedResources = a.allowed_resources;
  if (a.require_pkce !== undefined) input.requirePkce = a.require_pkce;
  if (a.authorization_signed_response_alg !== undefined) {
    const alg = authorizationAlgOf(a.authorization_signed_response_alg, idTokenAlgs);
    if (!alg.ok) return bad(alg.description);
    input.authorizationSignedResponseAlg = alg.alg;
  }
  if (a.access_token_signed_response_alg !== undefined) {
    const alg = accessTokenAlgOf(a.access_token_signed_response_alg, idTokenAlgs);
    if (!alg.ok) return bad(alg.description);
    input.accessTokenSignedResponseAlg = alg.alg;
  }
  if (a.public !== undefined) {
    input.public = a.public;
    // Switching public/confidential without naming a method picks the matching default.
    if (a.token_endpoint_auth_method === undefined) input.tokenEndpointAuthMethod = a.public ? 'none' : 'client_secret_basic';
  }
  if (a.token_endpoint_auth_method !== undefined) {
    input.tokenEndpointAuthMethod = a.token_endpoint_auth_method;
    if (a.public === undefined) input.public = a.token_endpoint_auth_method === 'none';
  }
  return validated(input, () => 'invalid_request');
}

/**
 * App fields whose change alters how the app authenticates or where codes,
 * tokens and logout tokens go: such a change needs a recent, stronger sign-in
 * (RFC 9470 step-up over the API, a recent sign-in on the pages).
 */
export const SENSITIVE_APP_FIELDS = [
  'redirect_uris',
  'post_logout_redirect_uris',
  'backchannel_logout_uri',
  'public',
  'token_endpoint_auth_method',
  'jwks',
  'jwks_uri',
  'require_pkce',
] as const;

/** The sensitive fields (app API names) that differ between the app and a validated new version of it. */
export function sensitiveChanges(current: ClientDoc, next: NewClientInput): string[] {
  const parsed = NewClientInput.safeParse(next);
  if (!parsed.success) return [];
  const before = appJson(current);
  const after = appJson({ ...current, ...parsed.data });
  return SENSITIVE_APP_FIELDS.filter((k) => JSON.stringify(before[k] ?? null) !== JSON.stringify(after[k] ?? null));
}

/** An app as the app API shows it (no secret: that is shown once, on create and rotate). */
export function appJson(c: ClientDoc): Record<string, unknown> {
  return {
    client_id: c._id,
    name: c.name,
    description: c.description,
    public: c.public,
    redirect_uris: c.redirectUris.map((r) => ({ type: r.type, value: r.value })),
    allowed_scopes: c.allowedScopes,
    oidc_fields: c.oidcFields,
    post_logout_redirect_uris: c.postLogoutRedirectUris,
    backchannel_logout_uri: c.backchannelLogoutUri,
    token_endpoint_auth_method: c.tokenEndpointAuthMethod,
    jwks: c.jwks,
    jwks_uri: c.jwksUri,
    id_token_signed_response_alg: c.idTokenSignedResponseAlg,
    userinfo_signed_response_alg: c.userinfoSignedResponseAlg ?? null,
    introspection_signed_response_alg: c.introspectionSignedResponseAlg ?? null,
    request_object_signing_alg: c.requestObjectSigningAlg ?? null,
    request_uris: c.requestUris ?? [],
    require_pushed_authorization_requests: c.requirePushedAuthorizationRequests ?? false,
    fapi_profile: c.fapiProfile ?? null,
    require_signed_request_object: c.requireSignedRequestObject ?? false,
    allowed_resources: c.allowedResources ?? [],
    require_pkce: c.requirePkce ?? true,
    authorization_signed_response_alg: c.authorizationSignedResponseAlg ?? null,
    access_token_signed_response_alg: c.accessTokenSignedResponseAlg ?? null,
    machine_access: c.machineAccess ?? [],
    is_verified: c.isVerified,
    is_active: isClientActive(c),
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}
