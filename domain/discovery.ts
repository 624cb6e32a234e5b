// Discovery documents, built from the issuer alone. Each capability adds its
// fields here when it is implemented: these documents advertise exactly what
// Keyflow does, nothing more.
import { SCOPES } from './scopes.js';

export const WELL_KNOWN = {
  openidConfiguration: '/.well-known/openid-configuration',
  oauthAuthorizationServer: '/.well-known/oauth-authorization-server',
  protectedResource: '/.well-known/oauth-protected-resource',
  jwks: '/.well-known/jwks.json',
  webfinger: '/.well-known/webfinger',
} as const;

/** OpenID Provider metadata (OIDC Discovery 1.0) and RFC 8414 metadata: the same endpoints. */
export function authorizationServerMetadata(issuer: string): Record<string, unknown> {
  return {
    issuer,
    jwks_uri: `${issuer}${WELL_KNOWN.jwks}`,
  };
}

/** RFC 9728 metadata of Keyflow's own API as a protected resource. */
export function protectedResourceMetadata(issuer: string): Record<string, unknown> {
  return {
    resource: issuer,
    authorization_servers: [issuer],
    jwks_uri: `${issuer}${WELL_KNOWN.jwks}`,
    scopes_supported: Object.keys(SCOPES),
    bearer_methods_supported: ['header'],
    resource_name: 'Keyflow API',
  };
}
