// A relying party written with oauth4webapi (a library no one here wrote) for
// browser tests: it discovers Keyflow over http (loopback), builds the
// authorization URL (PKCE S256, state, nonce) and, once the browser came back
// to its callback, checks state and iss, redeems the code and validates the
// ID token.
import * as oauth from 'oauth4webapi';
import type { RpCallback } from './browser.js';

/** oauth4webapi's option for an http issuer (the tests' api on loopback). */
export const INSECURE = { [oauth.allowInsecureRequests]: true } as const;

export async function discover(issuer: string): Promise<oauth.AuthorizationServer> {
  const issuerUrl = new URL(issuer);
  return oauth.processDiscoveryResponse(issuerUrl, await oauth.discoveryRequest(issuerUrl, { algorithm: 'oidc', ...INSECURE }));
}

export interface Authorization {
  url: string;
  verifier: string;
  state: string;
  nonce: string;
}

/** The authorization URL of `client` for `scope`, redirecting to `callback`. */
export async function authorization(as: oauth.AuthorizationServer, client: oauth.Client, callback: RpCallback, scope: string): Promise<Authorization> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: callback.redirectUri,
    response_type: 'code',
    scope,
    state,
    nonce,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  return { url: url.href, verifier, state, nonce };
}

/** The next hit of `callback` for `a`: validated, the code redeemed, the ID token checked (nonce, required). */
export async function redeemAtCallback(
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  auth: oauth.ClientAuth,
  callback: RpCallback,
  a: Authorization,
): Promise<oauth.TokenEndpointResponse> {
  const back = new URL(callback.redirectUri);
  back.search = (await callback.nextCallback()).toString();
  const params = oauth.validateAuthResponse(as, client, back, a.state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, auth, params, callback.redirectUri, a.verifier, INSECURE);
  return oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: a.nonce, requireIdToken: true });
}
