// Discovery documents, built from the issuer alone. Each capability adds its
// fields here when it is implemented: these documents advertise exactly what
// Keyflow does, nothing more.
import { SUPPORTED_ACR_VALUES, SUPPORTED_PROMPTS } from './authorization-request.js';
import { CLIENT_KEY_ALGS } from './client-key-algs.js';
import { OPT_IN_CLAIMS, SCOPE_CLAIMS } from './claims.js';
import { REQUEST_OBJECT_SIGNING_ALG_VALUES } from './request-object.js';
import { RESPONSE_MODES } from './response-mode.js';
import { RESPONSE_TYPES } from './response-type.js';
import { SCOPES } from './scopes.js';

export const WELL_KNOWN = {
  openidConfiguration: '/.well-known/openid-configuration',
  oauthAuthorizationServer: '/.well-known/oauth-authorization-server',
  protectedResource: '/.well-known/oauth-protected-resource',
  jwks: '/.well-known/jwks.json',
  webfinger: '/.well-known/webfinger',
} as const;

export const ENDPOINTS = {
  authorization: '/api/oauth/authorize',
  token: '/api/oauth/token',
  userinfo: '/api/oauth/userinfo',
  introspection: '/api/oauth/introspect',
  revocation: '/api/oauth/revoke',
  endSession: '/api/oauth/end_session',
  deviceAuthorization: '/api/oauth/device_authorization',
  pushedAuthorizationRequest: '/api/oauth/par',
  registration: '/api/oauth/register',
} as const;

export interface Capabilities {
  /** The token endpoint's grant types, and `implicit` (the authorization endpoint's). */
  grantTypes: string[];
  tokenEndpointAuthMethods: string[];
  /** ID token algorithms offered (ML_DSA_SIGNING). */
  idTokenAlgs: readonly string[];
}

/** OpenID Provider metadata (OIDC Discovery 1.0) and RFC 8414 metadata: the same endpoints. */
export function authorizationServerMetadata(issuer: string, capabilities: Capabilities): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: `${issuer}${ENDPOINTS.authorization}`,
    token_endpoint: `${issuer}${ENDPOINTS.token}`,
    device_authorization_endpoint: `${issuer}${ENDPOINTS.deviceAuthorization}`,
    pushed_authorization_request_endpoint: `${issuer}${ENDPOINTS.pushedAuthorizationRequest}`,
    // RFC 9126 §5: PAR is required per client (requirePushedAuthorizationRequests), not server-wide.
    require_pushed_authorization_requests: false,
    userinfo_endpoint: `${issuer}${ENDPOINTS.userinfo}`,
    // OIDC Core §5.3.2: a client registered with userinfo_signed_response_alg gets a JWT; the ID token's algorithms.
    userinfo_signing_alg_values_supported: [...capabilities.idTokenAlgs],
    jwks_uri: `${issuer}${WELL_KNOWN.jwks}`,
    introspection_endpoint: `${issuer}${ENDPOINTS.introspection}`,
    introspection_endpoint_auth_methods_supported: capabilities.tokenEndpointAuthMethods,
    introspection_endpoint_auth_signing_alg_values_supported: [...CLIENT_KEY_ALGS],
    // RFC 9701 §7: signed introspection responses, with the algorithms of ID tokens.
    introspection_signing_alg_values_supported: [...capabilities.idTokenAlgs],
    revocation_endpoint: `${issuer}${ENDPOINTS.revocation}`,
    revocation_endpoint_auth_methods_supported: capabilities.tokenEndpointAuthMethods,
    revocation_endpoint_auth_signing_alg_values_supported: [...CLIENT_KEY_ALGS],
    scopes_supported: Object.keys(SCOPES),
    // The implicit ones only for the clients registered for them (response-type.ts).
    response_types_supported: [...RESPONSE_TYPES],
    // With JARM's jwt, query.jwt, fragment.jwt and form_post.jwt (response-mode.ts): the responses are signed, never encrypted.
    response_modes_supported: [...RESPONSE_MODES],
    authorization_signing_alg_values_supported: [...capabilities.idTokenAlgs],
    grant_types_supported: capabilities.grantTypes,
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [...capabilities.idTokenAlgs],
    token_endpoint_auth_methods_supported: capabilities.tokenEndpointAuthMethods,
    token_endpoint_auth_signing_alg_values_supported: [...CLIENT_KEY_ALGS],
    dpop_signing_alg_values_supported: [...CLIENT_KEY_ALGS],
    code_challenge_methods_supported: ['S256'],
    prompt_values_supported: [...SUPPORTED_PROMPTS],
    acr_values_supported: [...SUPPORTED_ACR_VALUES],
    claims_supported: CLAIMS_SUPPORTED,
    claims_parameter_supported: true,
    // Request objects (request-object.ts), by value and by reference; unsigned ones (none) from clients that registered no algorithm.
    request_parameter_supported: true,
    request_uri_parameter_supported: true,
    // Keyflow fetches only the request_uris a client registered, never a URL a browser brings.
    require_request_uri_registration: true,
    request_object_signing_alg_values_supported: [...REQUEST_OBJECT_SIGNING_ALG_VALUES],
    authorization_response_iss_parameter_supported: true,
    end_session_endpoint: `${issuer}${ENDPOINTS.endSession}`,
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    registration_endpoint: `${issuer}${ENDPOINTS.registration}`,
  };
}

/**
 * Every claim Keyflow can release: the ID token's own, `role`, the standard
 * claims of each scope, and the opt-in and team claims (the per-team
 * `in_team_<id>` … are named after each team and cannot be listed).
 */
const CLAIMS_SUPPORTED = [
  ...['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'acr', 'amr', 'sid', 'role'],
  ...new Set(Object.values(SCOPE_CLAIMS).flat()),
  ...Object.keys(OPT_IN_CLAIMS),
  'teams',
];

/** RFC 9728 metadata of Keyflow's own API as a protected resource. */
export function protectedResourceMetadata(issuer: string): Record<string, unknown> {
  return {
    resource: issuer,
    authorization_servers: [issuer],
    jwks_uri: `${issuer}${WELL_KNOWN.jwks}`,
    scopes_supported: Object.keys(SCOPES),
    bearer_methods_supported: ['header'],
    dpop_signing_alg_values_supported: [...CLIENT_KEY_ALGS],
    dpop_bound_access_tokens_required: false,
    resource_name: 'Keyflow API',
  };
}
