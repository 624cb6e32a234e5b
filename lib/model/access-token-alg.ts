// Which algorithm signs an access token. Resource servers verify access
// tokens, and they are the parties least able to choose their JOSE library
// (Spring Security, Keycloak, PyJWT, go-oidc, nimbus-jose-jwt verify RS256,
// PS256 and ES256, not ML-DSA-65): so an access token is RS256 by default
// (PS256 for a FAPI 2.0 client, FAPI 2.0 §5.4.1), whatever the client's ID
// token algorithm. ML-DSA-65 is an opt-in, of the client
// (`access_token_signed_response_alg`) or of the resources: a token whose
// audience holds resources, each registered by the operator as verifying
// ML-DSA-65 (ACCESS_TOKEN_ML_DSA_RESOURCES), is ML-DSA-65. Keyflow's own API
// verifies every algorithm, so the issuer in `aud` counts for neither. Pure.
import { defaultSignedResponseAlg, type FapiProfile } from './fapi2.js';
import type { SigningAlg } from './signing-keys.js';

interface AccessTokenClient {
  accessTokenSignedResponseAlg?: SigningAlg | null;
  fapiProfile?: FapiProfile | null;
}

/**
 * The algorithm of an access token of `client` for the external `resources`
 * (RFC 8707; not the issuer): the client's choice, else ML-DSA-65 when every
 * resource is one of `mlDsaResources`, else RS256 (PS256 for FAPI 2.0).
 */
export function accessTokenAlg(client: AccessTokenClient, resources: readonly string[], mlDsaResources: readonly string[]): SigningAlg {
  if (client.accessTokenSignedResponseAlg) return client.accessTokenSignedResponseAlg;
  if (resources.length > 0 && resources.every((r) => mlDsaResources.includes(r))) return 'ML-DSA-65';
  return defaultSignedResponseAlg(client);
}
