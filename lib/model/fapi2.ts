// The FAPI 2.0 Security Profile (final), for the clients registered in its
// mode (`fapi_profile` "fapi2"). What a FAPI 2.0 client must be is checked
// when it is registered or changed (fapi2ClientProblems, through the client
// model); what its requests must be, where they arrive: pushed authorization
// requests only and response_type=code (authorization endpoint), a DPoP
// proof with every token request (token endpoint), client assertions for the
// issuer alone, signed with one of the profile's algorithms. PKCE is S256
// only for every client (pkce.ts) and authorization codes live 60 s
// (authorization-code.ts), as the profile asks. Pure.
import type { RedirectUriEntry } from './redirect-uri.js';
import type { SigningAlg } from './signing-keys.js';

export const FAPI_PROFILES = ['fapi2'] as const;
export type FapiProfile = (typeof FAPI_PROFILES)[number];

/** FAPI 2.0 §5.4.1: the JWS algorithms allowed: a client's keys (assertions, DPoP proofs, request objects) use one of these. */
export const FAPI2_CLIENT_ALGS = ['PS256', 'ES256', 'EdDSA'] as const;

/**
 * What Keyflow signs with for a FAPI 2.0 client: the profile's algorithms it
 * has keys for, and ML-DSA-65, outside the profile's list, for a client that
 * opts into post-quantum signatures (never the default).
 */
export const FAPI2_SIGNING_ALGS: readonly SigningAlg[] = ['PS256', 'ES256', 'ML-DSA-65'];

/** The signing algorithm of a FAPI 2.0 client's answers when it names none (RS256 elsewhere). */
export const FAPI2_DEFAULT_SIGNING_ALG: SigningAlg = 'PS256';

export const isFapi2 = (client: { fapiProfile?: FapiProfile | null }): boolean => client.fapiProfile === 'fapi2';

/**
 * The algorithm of a signed response (JARM, introspection) for a client that
 * registered none: RS256, those specifications' default, or the profile's
 * algorithm for a FAPI 2.0 client. Applied when signing; nothing is stored.
 */
export const defaultSignedResponseAlg = (client: { fapiProfile?: FapiProfile | null }): SigningAlg => (isFapi2(client) ? FAPI2_DEFAULT_SIGNING_ALG : 'RS256');

/**
 * The grants a FAPI 2.0 client may use: the profile's authorization code flow
 * (§5.3.2.2: pushed, PKCE), the refresh of what it issued, and client
 * credentials for what it does for itself (its private_key_jwt
 * authentication), each access token bound to a DPoP key (§5.3.2.1). The
 * device grant (no PAR, no PKCE)
 * and token exchange lie outside the profile: refused at registration, at the
 * device authorization endpoint and at the token endpoint (unauthorized_client).
 */
export const FAPI2_GRANT_TYPES: readonly string[] = ['authorization_code', 'refresh_token', 'client_credentials'];

/** Why a FAPI 2.0 client may not use `grantType` (the one wording of the registration and the endpoints). */
export const fapi2GrantRefusal = (grantType: string): string => `a FAPI 2.0 client uses only the grant types ${FAPI2_GRANT_TYPES.join(', ')}, not ${grantType}`;

/** Whether `client` may use the grant `grantType` at all: any grant outside FAPI 2.0, the profile's inside. */
export const mayUseGrant = (client: { fapiProfile?: FapiProfile | null }, grantType: string): boolean =>
  !isFapi2(client) || FAPI2_GRANT_TYPES.includes(grantType);

/** §5.3.2.2: a FAPI 2.0 client's authorization requests arrive only through PAR (RFC 9126), as for a client that requires it. */
export const mustPushRequests = (client: { fapiProfile?: FapiProfile | null; requirePushedAuthorizationRequests?: boolean }): boolean =>
  isFapi2(client) || client.requirePushedAuthorizationRequests === true;

/** The response types a client may use at the authorization endpoint: code alone for a FAPI 2.0 client, whatever it registered. */
export const allowedResponseTypes = <T extends { fapiProfile?: FapiProfile | null; responseTypes?: readonly string[] }>(client: T) =>
  isFapi2(client) ? ['code'] : client.responseTypes;

interface FapiClientFields {
  fapiProfile?: FapiProfile | null;
  public: boolean;
  tokenEndpointAuthMethod: string;
  redirectUris: readonly RedirectUriEntry[];
  requirePkce: boolean;
  idTokenSignedResponseAlg: SigningAlg;
  userinfoSignedResponseAlg: SigningAlg | null;
  introspectionSignedResponseAlg: SigningAlg | null;
  authorizationSignedResponseAlg: SigningAlg | null;
  accessTokenSignedResponseAlg: SigningAlg | null;
  requestObjectSigningAlg: string | null;
}

/** Why a client cannot be a FAPI 2.0 client as registered (none: it can, or it is not one). */
export function fapi2ClientProblems(c: FapiClientFields): string[] {
  if (!isFapi2(c)) return [];
  const problems: string[] = [];
  // §5.3.2.1: confidential clients authenticating with private_key_jwt (mTLS is not offered).
  if (c.public || c.tokenEndpointAuthMethod !== 'private_key_jwt') problems.push('a FAPI 2.0 client authenticates with private_key_jwt');
  // §5.3.2.2 (RFC 9700 §2.1): redirect URIs compared exactly, and https.
  for (const entry of c.redirectUris) {
    if (entry.type !== 'equals' || !entry.value.startsWith('https://'))
      problems.push(`a FAPI 2.0 client's redirect URIs are exact https URIs (${entry.value})`);
  }
  if (!c.requirePkce) problems.push('a FAPI 2.0 client uses PKCE');
  const allowed = FAPI2_SIGNING_ALGS.join(', ');
  if (!FAPI2_SIGNING_ALGS.includes(c.idTokenSignedResponseAlg)) problems.push(`a FAPI 2.0 client's id_token_signed_response_alg is one of ${allowed}`);
  for (const [name, alg] of [
    ['userinfo_signed_response_alg', c.userinfoSignedResponseAlg],
    ['introspection_signed_response_alg', c.introspectionSignedResponseAlg],
    ['authorization_signed_response_alg', c.authorizationSignedResponseAlg],
    ['access_token_signed_response_alg', c.accessTokenSignedResponseAlg],
  ] as const) {
    if (alg !== null && !FAPI2_SIGNING_ALGS.includes(alg)) problems.push(`a FAPI 2.0 client's ${name} is one of ${allowed}`);
  }
  const requestAlg = c.requestObjectSigningAlg;
  if (requestAlg !== null && !(FAPI2_CLIENT_ALGS as readonly string[]).includes(requestAlg)) {
    problems.push(`a FAPI 2.0 client's request_object_signing_alg is one of ${FAPI2_CLIENT_ALGS.join(', ')}`);
  }
  return problems;
}
