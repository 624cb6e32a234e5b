// A client's grant types (RFC 7591 §2 grant_types) and what they decide. The
// redirect-based flows (authorization_code, implicit) are the only ones that
// use the authorization endpoint, and so the only ones that need redirect
// URIs: a client registered without them (the device flow, client
// credentials) registers none, is refused at the authorization endpoint on
// an error page (there is nowhere to redirect to) and cannot redeem a code at
// the token endpoint. A client without grant types recorded (apps made before
// they were, or without naming any) uses authorization_code, as RFC 7591's
// default. The other grant types are gated where they are served (client
// credentials by machine access, FAPI 2.0 by its profile), not by this list.
import { IMPLICIT_GRANT_TYPE } from './response-type.js';

export const AUTHORIZATION_CODE_GRANT = 'authorization_code';
export const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';
export const TOKEN_EXCHANGE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** Every grant type a client may register: what the token endpoint serves, and implicit. */
export const CLIENT_GRANT_TYPES = [
  AUTHORIZATION_CODE_GRANT,
  IMPLICIT_GRANT_TYPE,
  'refresh_token',
  'client_credentials',
  DEVICE_CODE_GRANT_TYPE,
  TOKEN_EXCHANGE_GRANT_TYPE,
] as const;

export const isClientGrantType = (grantType: string): boolean => (CLIENT_GRANT_TYPES as readonly string[]).includes(grantType);

type WithGrantTypes = { grantTypes?: readonly string[] | null };

/** Whether the client signs people in through the authorization endpoint (and so needs redirect URIs). */
export const usesRedirectFlows = (client: WithGrantTypes): boolean =>
  !client.grantTypes || client.grantTypes.includes(AUTHORIZATION_CODE_GRANT) || client.grantTypes.includes(IMPLICIT_GRANT_TYPE);

/** Why the client may not use `grantType` at the token endpoint by its grant types, or null. */
export function grantTypeRefusal(client: WithGrantTypes, grantType: string): string | null {
  if (grantType === AUTHORIZATION_CODE_GRANT && client.grantTypes && !client.grantTypes.includes(AUTHORIZATION_CODE_GRANT))
    return 'this application is not registered for the authorization_code grant';
  return null;
}

/** The refusal the authorization endpoint shows (and PAR answers) for a client without redirect flows. */
export const NO_REDIRECT_FLOWS =
  'This application is not registered for sign-in through the browser (its grant types have neither authorization_code nor implicit).';
