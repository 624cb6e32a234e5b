// A FAPI 2.0 relying party written with oauth4webapi, an RP library that
// implements the profile, against a client in Keyflow's FAPI 2.0 mode with
// Message Signing: the request signed (JAR) and pushed (PAR) with
// private_key_jwt and a DPoP proof, the answer signed (JARM, response_mode
// jwt), the code redeemed with PKCE and DPoP, the PS256 ID token and the
// DPoP-bound UserInfo validated by the library, then a refresh with the same
// DPoP key. docs/fapi2.md walks through the same steps.
import { exportJWK, generateKeyPair } from 'jose';
import * as oauth from 'oauth4webapi';
import { createClient } from '../../../lib/store/clients.js';
import { createUser } from '../../../lib/store/users.js';
import { FAPI_REDIRECT } from '../../support/fapi-client.js';
import { useTestApi } from '../../support/harness.js';
import { authorizeAs } from '../../support/token-flow.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';

const PASSWORD = 'a fapi relying party password';
const api = useTestApi();

it('completes the FAPI 2.0 Message Signing flow: JAR through PAR, JARM, DPoP-bound tokens, PS256 ID token, refresh', async () => {
  const issuer = new URL(api.issuer);
  const insecure = { [oauth.allowInsecureRequests]: true }; // the test api is plain http; a deployment is https
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }));
  expect(as.response_modes_supported).toContain('jwt');
  expect(as.authorization_signing_alg_values_supported).toContain('PS256');

  // The client: its own PS256 key for private_key_jwt and request objects, registered in the FAPI 2.0 mode.
  const clientKeys = await generateKeyPair('PS256', { extractable: true });
  const publicJwk = { ...(await exportJWK(clientKeys.publicKey)), kid: 'fapi-rp-1', alg: 'PS256', use: 'sig' };
  const { client: registered } = await createClient(api.deps.store, {
    name: 'FAPI 2.0 RP',
    redirectUris: [{ type: 'equals', value: FAPI_REDIRECT }],
    allowedScopes: ['openid', 'profile', 'offline_access'],
    tokenEndpointAuthMethod: 'private_key_jwt',
    jwks: { keys: [publicJwk] },
    fapiProfile: 'fapi2',
    idTokenSignedResponseAlg: 'PS256',
    authorizationSignedResponseAlg: 'PS256',
    requestObjectSigningAlg: 'PS256',
    requireSignedRequestObject: true,
  });
  const client: oauth.Client = {
    client_id: registered._id,
    id_token_signed_response_alg: 'PS256',
    authorization_signed_response_alg: 'PS256',
  };
  const signingKey = { key: clientKeys.privateKey, kid: 'fapi-rp-1' };
  const clientAuth = oauth.PrivateKeyJwt(signingKey);
  const DPoP = oauth.DPoP(client, await generateKeyPair('ES256', { extractable: true }));

  // The request object, signed, pushed with a DPoP proof (which binds the code to the DPoP key).
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const request = await oauth.issueRequestObject(
    as,
    client,
    new URLSearchParams({
      response_type: 'code',
      response_mode: 'jwt',
      redirect_uri: FAPI_REDIRECT,
      scope: 'openid profile offline_access',
      state,
      nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }),
    signingKey,
  );
  const par = await oauth.processPushedAuthorizationResponse(
    as,
    client,
    await oauth.pushedAuthorizationRequest(as, client, clientAuth, new URLSearchParams({ request }), { DPoP, ...insecure }),
  );

  // The browser: client_id and request_uri only; the user signs in and consents.
  const email = uniqueEmail('fapi-rp');
  const user = await createUser(api.deps.store, { email, password: PASSWORD });
  const authorize = new URL(as.authorization_endpoint!);
  authorize.search = new URLSearchParams({ client_id: client.client_id, request_uri: par.request_uri }).toString();
  const back = await authorizeAs(new HttpUser(api.issuer), authorize.href, email, PASSWORD);
  expect([...back.searchParams.keys()]).toEqual(['response']);

  // The signed answer, validated by the library (signature, iss, aud, exp, state).
  const params = await oauth.validateJwtAuthResponse(as, client, back, state, insecure);
  const result = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, FAPI_REDIRECT, verifier, { DPoP, ...insecure }),
    { expectedNonce: nonce, requireIdToken: true },
  );
  expect(result.token_type).toBe('dpop');
  expect(oauth.getValidatedIdTokenClaims(result)).toMatchObject({ iss: api.issuer, sub: user._id, aud: client.client_id, nonce });

  const info = await oauth.processUserInfoResponse(as, client, user._id, await oauth.userInfoRequest(as, client, result.access_token, { DPoP, ...insecure }));
  expect(info.sub).toBe(user._id);

  const refreshed = await oauth.processRefreshTokenResponse(
    as,
    client,
    await oauth.refreshTokenGrantRequest(as, client, clientAuth, result.refresh_token!, { DPoP, ...insecure }),
  );
  expect(refreshed.token_type).toBe('dpop');
});
