// Discovery: what the OpenID Provider / RFC 8414 metadata and the RFC 9728
// protected resource metadata advertise, built from the issuer and the
// deployment's capabilities; each advertised value is one Keyflow acts on.
import { SUPPORTED_ACR_VALUES, SUPPORTED_PROMPTS } from '../../../lib/model/authorization-request.js';
import { SCOPE_CLAIMS } from '../../../lib/model/claims.js';
import { authorizationServerMetadata, ENDPOINTS, protectedResourceMetadata, WELL_KNOWN } from '../../../lib/model/discovery.js';
import { isKnownScope, SCOPES } from '../../../lib/model/scopes.js';

const ISSUER = 'https://id.example';
const capabilities = {
  grantTypes: ['authorization_code', 'refresh_token', 'implicit'],
  tokenEndpointAuthMethods: ['client_secret_basic', 'private_key_jwt'],
  idTokenAlgs: ['ML-DSA-65', 'RS256', 'PS256', 'ES256'],
};
const metadata = authorizationServerMetadata(ISSUER, capabilities);

describe('authorizationServerMetadata', () => {
  it('names every endpoint under the issuer', () => {
    expect(metadata).toMatchObject({
      issuer: ISSUER,
      authorization_endpoint: 'https://id.example/api/oauth/authorize',
      token_endpoint: 'https://id.example/api/oauth/token',
      userinfo_endpoint: 'https://id.example/api/oauth/userinfo',
      introspection_endpoint: 'https://id.example/api/oauth/introspect',
      revocation_endpoint: 'https://id.example/api/oauth/revoke',
      end_session_endpoint: 'https://id.example/api/oauth/end_session',
      device_authorization_endpoint: 'https://id.example/api/oauth/device_authorization',
      pushed_authorization_request_endpoint: 'https://id.example/api/oauth/par',
      registration_endpoint: 'https://id.example/api/oauth/register',
      jwks_uri: 'https://id.example/.well-known/jwks.json',
    });
    const endpoints = Object.entries(metadata).filter(([k]) => k.endsWith('_endpoint'));
    expect(endpoints.map(([, v]) => (v as string).slice(ISSUER.length)).sort()).toEqual(Object.values(ENDPOINTS).sort());
    expect(WELL_KNOWN.openidConfiguration).toBe('/.well-known/openid-configuration');
  });

  it('advertises the deployment’s grant types, client authentication and ID token algorithms as given', () => {
    expect(metadata).toMatchObject({
      grant_types_supported: capabilities.grantTypes,
      token_endpoint_auth_methods_supported: capabilities.tokenEndpointAuthMethods,
      introspection_endpoint_auth_methods_supported: capabilities.tokenEndpointAuthMethods,
      revocation_endpoint_auth_methods_supported: capabilities.tokenEndpointAuthMethods,
      id_token_signing_alg_values_supported: ['ML-DSA-65', 'RS256', 'PS256', 'ES256'],
      userinfo_signing_alg_values_supported: ['ML-DSA-65', 'RS256', 'PS256', 'ES256'],
      authorization_signing_alg_values_supported: ['ML-DSA-65', 'RS256', 'PS256', 'ES256'],
    });
    expect(authorizationServerMetadata(ISSUER, { ...capabilities, idTokenAlgs: ['RS256'] })).toMatchObject({
      id_token_signing_alg_values_supported: ['RS256'],
      userinfo_signing_alg_values_supported: ['RS256'],
      authorization_signing_alg_values_supported: ['RS256'],
    });
  });

  it('advertises what the authorization endpoint accepts, and nothing it refuses', () => {
    expect(metadata).toMatchObject({
      response_types_supported: ['code', 'id_token', 'id_token token'],
      response_modes_supported: ['query', 'fragment', 'form_post', 'jwt', 'query.jwt', 'fragment.jwt', 'form_post.jwt'],
      code_challenge_methods_supported: ['S256'],
      prompt_values_supported: [...SUPPORTED_PROMPTS],
      acr_values_supported: [...SUPPORTED_ACR_VALUES],
      subject_types_supported: ['public'],
      require_pushed_authorization_requests: false,
      claims_parameter_supported: true,
      request_parameter_supported: true,
      request_uri_parameter_supported: true,
      require_request_uri_registration: true,
      authorization_response_iss_parameter_supported: true,
      backchannel_logout_supported: true,
      backchannel_logout_session_supported: true,
    });
    expect(metadata.request_object_signing_alg_values_supported).toEqual(['RS256', 'PS256', 'ES256', 'EdDSA', 'none']);
    // JWT responses (JARM) are signed only.
    expect(Object.keys(metadata).filter((k) => k.startsWith('authorization_encryption_'))).toEqual([]);
    // Client-held keys never use a shared-secret algorithm.
    for (const key of [
      'token_endpoint_auth_signing_alg_values_supported',
      'dpop_signing_alg_values_supported',
      'introspection_endpoint_auth_signing_alg_values_supported',
    ])
      expect([key, metadata[key]]).toEqual([key, ['RS256', 'PS256', 'ES256', 'EdDSA']]);
  });

  it('lists every catalogued scope (each one Keyflow knows) and every claim it can release, once', () => {
    expect(metadata.scopes_supported).toEqual(Object.keys(SCOPES));
    for (const scope of metadata.scopes_supported as string[]) expect([scope, isKnownScope(scope)]).toEqual([scope, true]);
    const claims = metadata.claims_supported as string[];
    expect(new Set(claims).size).toBe(claims.length);
    expect(claims).toEqual(
      expect.arrayContaining(['sub', 'iss', 'auth_time', 'acr', 'amr', 'sid', 'role', 'teams', 'apps', 'gpg_keys', ...Object.values(SCOPE_CLAIMS).flat()]),
    );
  });
});

describe('protectedResourceMetadata (RFC 9728)', () => {
  it('describes Keyflow’s own API as a resource of this issuer, bearer tokens in the header, DPoP optional', () => {
    expect(protectedResourceMetadata(ISSUER)).toEqual({
      resource: ISSUER,
      authorization_servers: [ISSUER],
      jwks_uri: 'https://id.example/.well-known/jwks.json',
      scopes_supported: Object.keys(SCOPES),
      bearer_methods_supported: ['header'],
      dpop_signing_alg_values_supported: ['RS256', 'PS256', 'ES256', 'EdDSA'],
      dpop_bound_access_tokens_required: false,
      resource_name: 'Keyflow API',
    });
  });
});
