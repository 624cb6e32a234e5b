// An RP library no one here wrote (oauth4webapi) runs discovery and the code
// flow against Keyflow, validating iss, state, nonce and the ID token; the
// ID token signature is then checked independently: jose for RS256, noble for ML-DSA-65.
// oauth4webapi also validates JWT authorization responses (JARM) by query and
// by form_post. A second one (openid-client) sends its request by POST, and as a signed
// request object (JAR), takes the answer by query and by form_post, and
// validates an implicit flow's ID token in the fragment and by form_post.
import * as oauth from 'oauth4webapi';
import * as oidc from 'openid-client';
import { createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import type { IdTokenAlg } from '../../../lib/model/clients.js';
import { createClient } from '../../../lib/store/clients.js';
import { createUser } from '../../../lib/store/users.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { skipTime } from '../../support/clock.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { formPostOf } from '../../support/form-post.js';

const PASSWORD = 'an rp library password';
const REDIRECT = 'http://127.0.0.1:9/callback';

const api = useTestApi();

async function discover(): Promise<oauth.AuthorizationServer> {
  const issuerUrl = new URL(api.issuer);
  const response = await oauth.discoveryRequest(issuerUrl, { algorithm: 'oidc', [oauth.allowInsecureRequests]: true });
  return oauth.processDiscoveryResponse(issuerUrl, response);
}

describe.each<IdTokenAlg>(['RS256', 'ML-DSA-65'])('oauth4webapi with a %s client', (alg) => {
  it('completes discovery and the code flow with PKCE, state and nonce, and reads UserInfo', async () => {
    const as = await discover();
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
    expect(as.id_token_signing_alg_values_supported).toContain(alg);

    const email = uniqueEmail('rp');
    const user = await createUser(api.deps.store, { email, password: PASSWORD, name: 'RP Library' });
    const { client: registered, clientSecret } = await createClient(api.deps.store, {
      name: `oauth4webapi ${alg}`,
      redirectUris: [{ type: 'equals', value: REDIRECT }],
      allowedScopes: ['openid', 'profile', 'email'],
      idTokenSignedResponseAlg: alg,
    });
    const client: oauth.Client = { client_id: registered._id, id_token_signed_response_alg: alg };
    const clientAuth = oauth.ClientSecretBasic(clientSecret!);

    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const authorizationUrl = new URL(as.authorization_endpoint!);
    authorizationUrl.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'openid profile email',
      state,
      nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();

    // The user's part, over HTTP: sign in and allow.
    const agent = new HttpUser(api.issuer);
    let step = await agent.get(authorizationUrl.href);
    step = await agent.signIn(step, email, PASSWORD);
    step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
    const callback = step.external!;

    // oauth4webapi checks state and the RFC 9207 iss parameter.
    const params = oauth.validateAuthResponse(as, client, callback, state);
    expect(() => oauth.validateAuthResponse(as, client, callback, 'another-state')).toThrow();
    const forged = new URL(callback);
    forged.searchParams.set('iss', 'https://evil.example');
    expect(() => oauth.validateAuthResponse(as, client, forged, state)).toThrow();

    const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, REDIRECT, verifier, { [oauth.allowInsecureRequests]: true });
    const result = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: nonce, requireIdToken: true });
    const claims = oauth.getValidatedIdTokenClaims(result)!;
    expect(claims).toMatchObject({ iss: api.issuer, aud: client.client_id, sub: user._id, nonce, email });

    // The ID token signature, checked against the published JWKS by an independent verifier.
    const idToken = result.id_token!;
    const [h, p, s] = idToken.split('.') as [string, string, string];
    const header = JSON.parse(Buffer.from(h, 'base64url').toString());
    expect(header.alg).toBe(alg);
    if (alg === 'RS256') {
      const verified = await jwtVerify(idToken, createRemoteJWKSet(new URL(as.jwks_uri!)), {
        issuer: api.issuer,
        audience: client.client_id,
        algorithms: ['RS256'],
      });
      expect(verified.payload.sub).toBe(user._id);
    } else {
      const { keys } = (await (await fetch(as.jwks_uri!)).json()) as Json;
      const jwk = keys.find((k: Json) => k.kid === header.kid);
      expect(jwk).toMatchObject({ kty: 'AKP', alg: 'ML-DSA-65' });
      expect(ml_dsa65.verify(Buffer.from(s, 'base64url'), Buffer.from(`${h}.${p}`), Buffer.from(jwk.pub, 'base64url'))).toBe(true);
    }

    const userInfoResponse = await oauth.userInfoRequest(as, client, result.access_token, { [oauth.allowInsecureRequests]: true });
    const info = await oauth.processUserInfoResponse(as, client, claims.sub, userInfoResponse);
    expect(info).toMatchObject({ sub: user._id, email, email_verified: true, name: 'RP Library' });
  });
});

describe('oauth4webapi: refresh rotation, introspection and revocation', () => {
  it('rotates a refresh token, introspects both token kinds, and revokes', async () => {
    const as = await discover();
    expect(as.introspection_endpoint).toBe(`${api.issuer}/api/oauth/introspect`);
    expect(as.revocation_endpoint).toBe(`${api.issuer}/api/oauth/revoke`);
    const email = uniqueEmail('rp-life');
    const user = await createUser(api.deps.store, { email, password: PASSWORD });
    const { client: registered, clientSecret } = await createClient(api.deps.store, {
      name: 'oauth4webapi lifecycle',
      redirectUris: [{ type: 'equals', value: REDIRECT }],
      allowedScopes: ['openid', 'offline_access'],
      idTokenSignedResponseAlg: 'ML-DSA-65',
    });
    const client: oauth.Client = { client_id: registered._id, id_token_signed_response_alg: 'ML-DSA-65' };
    const clientAuth = oauth.ClientSecretBasic(clientSecret!);
    const insecure = { [oauth.allowInsecureRequests]: true };

    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'openid offline_access',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const agent = new HttpUser(api.issuer);
    let step = await agent.get(url.href);
    step = await agent.signIn(step, email, PASSWORD);
    step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
    const params = oauth.validateAuthResponse(as, client, step.external!, oauth.expectNoState);
    const first = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, REDIRECT, verifier, insecure),
    );
    expect(first.refresh_token).toEqual(expect.any(String));

    const rotated = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, first.refresh_token!, insecure),
    );
    expect(rotated.refresh_token).not.toBe(first.refresh_token);
    expect(rotated.id_token).toBeUndefined();

    const at = await oauth.processIntrospectionResponse(as, client, await oauth.introspectionRequest(as, client, clientAuth, rotated.access_token, insecure));
    expect(at).toMatchObject({ active: true, sub: user._id, client_id: client.client_id, token_type: 'Bearer' });
    const rt = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, clientAuth, rotated.refresh_token!, {
        ...insecure,
        additionalParameters: { token_type_hint: 'refresh_token' },
      }),
    );
    expect(rt).toMatchObject({ active: true, token_type: 'refresh_token' });

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, rotated.refresh_token!, insecure));
    const after = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, clientAuth, rotated.access_token, insecure),
    );
    expect(after.active).toBe(false);
    await expect(
      oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, clientAuth, rotated.refresh_token!, insecure)),
    ).rejects.toThrow();
  });
});

describe('oauth4webapi: device authorization', () => {
  it('runs the device flow: pending, approval at /device, then tokens', async () => {
    const as = await discover();
    expect(as.device_authorization_endpoint).toBe(`${api.issuer}/api/oauth/device_authorization`);
    const email = uniqueEmail('rp-device');
    const user = await createUser(api.deps.store, { email, password: PASSWORD });
    const { client: registered, clientSecret } = await createClient(api.deps.store, {
      name: 'oauth4webapi device',
      redirectUris: [{ value: 'https://device.example/cb' }],
      allowedScopes: ['openid', 'offline_access'],
      idTokenSignedResponseAlg: 'ML-DSA-65',
    });
    const client: oauth.Client = { client_id: registered._id, id_token_signed_response_alg: 'ML-DSA-65' };
    const clientAuth = oauth.ClientSecretBasic(clientSecret!);
    const insecure = { [oauth.allowInsecureRequests]: true };

    const device = await oauth.processDeviceAuthorizationResponse(
      as,
      client,
      await oauth.deviceAuthorizationRequest(as, client, clientAuth, { scope: 'openid offline_access' }, insecure),
    );
    expect(device).toMatchObject({ verification_uri: `${api.issuer}/device`, expires_in: 600, interval: 5 });
    const pending = oauth.processDeviceCodeResponse(as, client, await oauth.deviceCodeGrantRequest(as, client, clientAuth, device.device_code, insecure));
    await expect(pending).rejects.toMatchObject({ error: 'authorization_pending' });

    // The person: opens verification_uri_complete, signs in, allows.
    const agent = new HttpUser(api.issuer);
    let step = await agent.get(device.verification_uri_complete!);
    // The page shows the code prefilled; the person presses Continue.
    if (new URL(step.url).pathname === '/device') step = await agent.submit(await step.res.text(), '/device', { user_code: device.user_code });
    if (step.url.includes('/login')) step = await agent.signIn(step, email, PASSWORD);
    expect(new URL(step.url).pathname).toBe('/device/consent');
    await agent.submit(await step.res.text(), '/device/consent', { decision: 'allow' });

    // Polling honours the interval (slow_down otherwise): the clock skips it,
    // and a real pause after each pending answer lets a loaded machine record
    // the approval (the loop ends in about 10 s at most).
    let result: oauth.TokenEndpointResponse | undefined;
    for (let i = 0; i < 40 && !result; i++) {
      skipTime((device.interval ?? 5) * 1000 + 200);
      try {
        result = await oauth.processDeviceCodeResponse(as, client, await oauth.deviceCodeGrantRequest(as, client, clientAuth, device.device_code, insecure));
      } catch (err) {
        if ((err as { error?: string }).error !== 'authorization_pending') throw err;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    expect(result?.refresh_token).toEqual(expect.any(String));
    expect(oauth.getValidatedIdTokenClaims(result!)?.sub).toBe(user._id);
  }, 90_000);
});

describe('oauth4webapi: PAR + private_key_jwt + DPoP, end to end', () => {
  it('pushes the request, authenticates with a key, binds every token to a DPoP key, refreshes, reads UserInfo, introspects and revokes', async () => {
    const as = await discover();
    expect(as.pushed_authorization_request_endpoint).toBe(`${api.issuer}/api/oauth/par`);
    expect(as.dpop_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256']));
    expect(as.token_endpoint_auth_methods_supported).toContain('private_key_jwt');

    // The client's assertion key (registered inline) and a separate DPoP key.
    const clientKeys = await generateKeyPair('ES256', { extractable: true });
    const publicJwk = { ...(await exportJWK(clientKeys.publicKey)), kid: 'rp-key-1', alg: 'ES256', use: 'sig' };
    const dpopKeys = await generateKeyPair('ES256', { extractable: true });
    const email = uniqueEmail('rp-pop');
    const user = await createUser(api.deps.store, { email, password: PASSWORD });
    const { client: registered } = await createClient(api.deps.store, {
      name: 'oauth4webapi PoP',
      redirectUris: [{ type: 'equals', value: REDIRECT }],
      allowedScopes: ['openid', 'profile', 'offline_access'],
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwks: { keys: [publicJwk] },
      idTokenSignedResponseAlg: 'ML-DSA-65',
    });
    const client: oauth.Client = { client_id: registered._id, id_token_signed_response_alg: 'ML-DSA-65' };
    const clientAuth = oauth.PrivateKeyJwt({ key: clientKeys.privateKey, kid: 'rp-key-1' });
    const DPoP = oauth.DPoP(client, dpopKeys);
    const opts = { [oauth.allowInsecureRequests]: true, DPoP };

    // PAR with private_key_jwt; the browser gets only client_id + request_uri.
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const par = await oauth.processPushedAuthorizationResponse(
      as,
      client,
      await oauth.pushedAuthorizationRequest(
        as,
        client,
        clientAuth,
        {
          redirect_uri: REDIRECT,
          response_type: 'code',
          scope: 'openid profile offline_access',
          state,
          code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
        },
        opts,
      ),
    );
    expect(par.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    const agent = new HttpUser(api.issuer);
    let step = await agent.get(`${as.authorization_endpoint}?${new URLSearchParams({ client_id: client.client_id, request_uri: par.request_uri })}`);
    step = await agent.signIn(step, email, PASSWORD);
    step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
    const params = oauth.validateAuthResponse(as, client, step.external!, state);

    // Code exchange and refresh, both DPoP-bound.
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, REDIRECT, verifier, opts),
    );
    expect(tokens.token_type).toBe('dpop');
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, opts),
    );
    expect(refreshed.token_type).toBe('dpop');

    // UserInfo with DPoP; the same token as plain Bearer is refused.
    const info = await oauth.processUserInfoResponse(as, client, user._id, await oauth.userInfoRequest(as, client, refreshed.access_token, opts));
    expect(info.sub).toBe(user._id);
    const asBearer = await fetch(as.userinfo_endpoint!, { headers: { authorization: `Bearer ${refreshed.access_token}` } });
    expect(asBearer.status).toBe(401);
    expect(asBearer.headers.get('www-authenticate')).toMatch(/^DPoP /);

    // Introspection shows the binding; revocation ends the grant.
    const introspected = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, clientAuth, refreshed.access_token, { [oauth.allowInsecureRequests]: true }),
    );
    expect(introspected).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: expect.any(String) } });
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, clientAuth, refreshed.refresh_token!, { [oauth.allowInsecureRequests]: true }),
    );
    const after = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, clientAuth, refreshed.access_token, { [oauth.allowInsecureRequests]: true }),
    );
    expect(after.active).toBe(false);
  });
});

describe('oauth4webapi: a JWT authorization response (JARM)', () => {
  const insecure = { [oauth.allowInsecureRequests]: true };

  /** A user signs in and answers the consent page for `url`; returns Keyflow's last answer. */
  async function userAnswers(url: URL, decision: 'allow' | 'deny') {
    const email = uniqueEmail('rp-jarm');
    await createUser(api.deps.store, { email, password: PASSWORD });
    const agent = new HttpUser(api.issuer);
    let step = await agent.get(url.href);
    step = await agent.signIn(step, email, PASSWORD);
    return agent.submit(await step.res.text(), '/consent', { decision });
  }

  it.each(['jwt', 'form_post.jwt'])(
    'validates the signed response of response_mode=%s (signature on the JWKS, iss, aud, exp, state) and redeems its code',
    async (mode) => {
      const as = await discover();
      expect(as.response_modes_supported).toEqual(expect.arrayContaining(['jwt', 'query.jwt', 'form_post.jwt']));
      expect(as.authorization_signing_alg_values_supported).toContain('RS256');
      const { client: registered, clientSecret } = await createClient(api.deps.store, {
        name: 'oauth4webapi JARM',
        redirectUris: [{ type: 'equals', value: REDIRECT }],
        allowedScopes: ['openid', 'profile'],
        idTokenSignedResponseAlg: 'RS256',
      });
      // No authorization_signed_response_alg on either side: JARM's RS256, which the library expects too.
      const client: oauth.Client = { client_id: registered._id, id_token_signed_response_alg: 'RS256' };
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const nonce = oauth.generateRandomNonce();
      const url = new URL(as.authorization_endpoint!);
      url.search = new URLSearchParams({
        client_id: client.client_id,
        redirect_uri: REDIRECT,
        response_type: 'code',
        response_mode: mode,
        scope: 'openid profile',
        state,
        nonce,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      }).toString();
      const step = await userAnswers(url, 'allow');
      const callback = mode === 'jwt' ? step.external!.searchParams : new URLSearchParams((await formPostOf(step.res)).fields);
      expect([...callback.keys()]).toEqual(['response']);

      // A plain validation refuses a JARM response; the JWT validation takes it, for this state only.
      expect(() => oauth.validateAuthResponse(as, client, callback, state)).toThrow(/JARM/);
      await expect(oauth.validateJwtAuthResponse(as, client, callback, 'another-state', insecure)).rejects.toThrow();
      const [h, p, s] = callback.get('response')!.split('.') as [string, string, string];
      const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
      const forged = `${h}.${Buffer.from(JSON.stringify({ ...payload, state: 'forged' })).toString('base64url')}.${s}`;
      await expect(oauth.validateJwtAuthResponse(as, client, new URLSearchParams({ response: forged }), 'forged', insecure)).rejects.toThrow();
      const params = await oauth.validateJwtAuthResponse(as, client, callback, state, insecure);

      const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretBasic(clientSecret!), params, REDIRECT, verifier, insecure);
      const result = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: nonce, requireIdToken: true });
      expect(oauth.getValidatedIdTokenClaims(result)).toMatchObject({ iss: api.issuer, aud: client.client_id, nonce });
    },
  );

  it('reads a refusal from the signed response: the user denied the request', async () => {
    const as = await discover();
    const { client: registered } = await createClient(api.deps.store, {
      name: 'oauth4webapi JARM denied',
      redirectUris: [{ type: 'equals', value: REDIRECT }],
      allowedScopes: ['openid'],
      idTokenSignedResponseAlg: 'RS256',
      authorizationSignedResponseAlg: 'RS256',
    });
    const client: oauth.Client = { client_id: registered._id, authorization_signed_response_alg: 'RS256' };
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      response_mode: 'query.jwt',
      scope: 'openid',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
      code_challenge_method: 'S256',
    }).toString();
    const step = await userAnswers(url, 'deny');
    await expect(oauth.validateJwtAuthResponse(as, client, step.external!, state, insecure)).rejects.toMatchObject({
      name: 'AuthorizationResponseError',
      error: 'access_denied',
    });
  });
});

describe('openid-client: the request by POST, the answer by query and by form_post', () => {
  it('builds the request, POSTs it as a form, and validates and redeems the answer, a POSTed callback included', async () => {
    const email = uniqueEmail('rp-post');
    const user = await createUser(api.deps.store, { email, password: PASSWORD, name: 'RP Post' });
    const { client: registered, clientSecret } = await createClient(api.deps.store, {
      name: 'openid-client POST',
      redirectUris: [{ type: 'equals', value: REDIRECT }],
      allowedScopes: ['openid', 'profile', 'email'],
      idTokenSignedResponseAlg: 'RS256',
    });
    const config = await oidc.discovery(new URL(api.issuer), registered._id, { id_token_signed_response_alg: 'RS256' }, oidc.ClientSecretBasic(clientSecret!), {
      execute: [oidc.allowInsecureRequests],
    });
    expect(config.serverMetadata().response_modes_supported).toEqual(expect.arrayContaining(['query', 'fragment', 'form_post']));
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const agent = new HttpUser(api.issuer);

    /** openid-client's authorization request, its parameters sent as a form to the authorization endpoint (OIDC Core §3.1.2.1). */
    async function postAuthorization(extra: Record<string, string>) {
      const verifier = oidc.randomPKCECodeVerifier();
      const checks = { pkceCodeVerifier: verifier, expectedState: oidc.randomState(), expectedNonce: oidc.randomNonce() };
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope: 'openid email',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state: checks.expectedState,
        nonce: checks.expectedNonce,
        ...extra,
      });
      expect(url.origin + url.pathname).toBe(config.serverMetadata().authorization_endpoint);
      const res = await agent.request(url.origin + url.pathname, { method: 'POST', headers: form, body: url.searchParams });
      return { res, checks };
    }
    /** The request the browser makes when a form_post page submits itself: what the RP's callback receives. */
    const postedCallback = (action: string, fields: Record<string, string>) =>
      new Request(action, { method: 'POST', headers: form, body: new URLSearchParams(fields) });

    // By query, signed out: the POST goes on as a GET, then sign-in and consent.
    const byQuery = await postAuthorization({});
    let step = await agent.follow(byQuery.res);
    step = await agent.signIn(step, email, PASSWORD);
    step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
    const tokens = await oidc.authorizationCodeGrant(config, step.external!, byQuery.checks);
    expect(tokens.claims()).toMatchObject({ iss: api.issuer, sub: user._id, email, nonce: byQuery.checks.expectedNonce });

    // By form_post, signed in and consented: the code at once, in the page's form. openid-client
    // reads the POSTed callback, checks state and iss (forged ones are refused before the code is used), and redeems it.
    const byForm = await postAuthorization({ response_mode: 'form_post' });
    const { action, fields } = await formPostOf(byForm.res);
    expect(action).toBe(REDIRECT);
    const refusal = (changed: Record<string, string>) =>
      oidc.authorizationCodeGrant(config, postedCallback(action, { ...fields, ...changed }), byForm.checks).then(
        () => 'accepted',
        (err: Json) => String(err.cause?.message ?? err.message),
      );
    expect(await refusal({ iss: 'https://evil.example' })).toMatch(/"iss"/);
    expect(await refusal({ state: 'another' })).toMatch(/"state"/);
    const formTokens = await oidc.authorizationCodeGrant(config, postedCallback(action, fields), byForm.checks);
    expect(formTokens.claims()).toMatchObject({ iss: api.issuer, sub: user._id, nonce: byForm.checks.expectedNonce });

    // An error by form_post reaches openid-client as the authorization server's error.
    const unconsented = await postAuthorization({ response_mode: 'form_post', scope: 'openid profile', prompt: 'none' });
    const answer = await formPostOf(unconsented.res);
    await expect(oidc.authorizationCodeGrant(config, postedCallback(answer.action, answer.fields), unconsented.checks)).rejects.toMatchObject({
      error: 'consent_required',
    });
  });
});

describe('openid-client: the request as a signed request object (RFC 9101)', () => {
  it('builds the request with buildAuthorizationUrlWithJAR and its private key; Keyflow verifies it and the code flow completes', async () => {
    const email = uniqueEmail('rp-jar');
    const user = await createUser(api.deps.store, { email, password: PASSWORD, name: 'RP JAR' });
    const keys = await generateKeyPair('PS256');
    const publicJwk = { ...(await exportJWK(keys.publicKey)), kid: 'rp-jar-1', alg: 'PS256', use: 'sig' };
    const { client: registered, clientSecret } = await createClient(api.deps.store, {
      name: 'openid-client JAR',
      redirectUris: [{ type: 'equals', value: REDIRECT }],
      allowedScopes: ['openid', 'profile', 'email'],
      idTokenSignedResponseAlg: 'RS256',
      jwks: { keys: [publicJwk] },
      requestObjectSigningAlg: 'PS256',
    });
    const config = await oidc.discovery(new URL(api.issuer), registered._id, { id_token_signed_response_alg: 'RS256' }, oidc.ClientSecretBasic(clientSecret!), {
      execute: [oidc.allowInsecureRequests],
    });
    expect(config.serverMetadata()).toMatchObject({
      request_parameter_supported: true,
      request_object_signing_alg_values_supported: expect.arrayContaining(['PS256']),
    });

    const verifier = oidc.randomPKCECodeVerifier();
    const checks = { pkceCodeVerifier: verifier, expectedState: oidc.randomState(), expectedNonce: oidc.randomNonce() };
    const url = await oidc.buildAuthorizationUrlWithJAR(
      config,
      {
        redirect_uri: REDIRECT,
        scope: 'openid email',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state: checks.expectedState,
        nonce: checks.expectedNonce,
        max_age: '3600',
      },
      { key: keys.privateKey, kid: 'rp-jar-1' },
    );
    // Everything is inside the object: the URL carries client_id and request alone (RFC 9101 §5).
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request']);

    const agent = new HttpUser(api.issuer);
    let step = await agent.get(url.href);
    step = await agent.signIn(step, email, PASSWORD);
    step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
    const tokens = await oidc.authorizationCodeGrant(config, step.external!, checks);
    expect(tokens.scope).toBe('openid email');
    expect(tokens.claims()).toMatchObject({ iss: api.issuer, sub: user._id, email, nonce: checks.expectedNonce });
  });
});

describe('openid-client: the implicit flow (response_type=id_token)', () => {
  it('validates the ID token in the fragment and by form_post (signature, iss, aud, nonce, state), and refuses a forged one', async () => {
    const email = uniqueEmail('rp-implicit');
    const user = await createUser(api.deps.store, { email, password: PASSWORD, name: 'RP Implicit' });
    // Registered for the implicit flow, as dynamic registration records it; a public client.
    const { client: registered } = await createClient(
      api.deps.store,
      {
        name: 'openid-client implicit',
        redirectUris: [{ type: 'equals', value: REDIRECT }],
        allowedScopes: ['openid', 'email'],
        idTokenSignedResponseAlg: 'RS256',
        public: true,
      },
      { grantTypes: ['implicit'], responseTypes: ['id_token'] },
    );
    const config = await oidc.discovery(new URL(api.issuer), registered._id, { id_token_signed_response_alg: 'RS256' }, oidc.None(), {
      execute: [oidc.allowInsecureRequests, oidc.useIdTokenResponseType],
    });
    expect(config.serverMetadata().response_types_supported).toContain('id_token');
    const agent = new HttpUser(api.issuer);

    /** openid-client's request (response_type=id_token, its nonce and state); Keyflow's answer. */
    async function authorize(extra: Record<string, string>) {
      const checks = { expectedNonce: oidc.randomNonce(), expectedState: oidc.randomState() };
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope: 'openid email',
        nonce: checks.expectedNonce,
        state: checks.expectedState,
        ...extra,
      });
      expect(url.searchParams.get('response_type')).toBe('id_token');
      return { step: await agent.get(url.href), checks };
    }

    // In the fragment (the default), after sign-in and consent.
    const first = await authorize({});
    let step = await agent.signIn(first.step, email, PASSWORD);
    step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
    const callback = step.external!;
    expect(callback.search).toBe('');
    const { expectedNonce, expectedState } = first.checks;
    const claims = await oidc.implicitAuthentication(config, callback, expectedNonce, { expectedState });
    expect(claims).toMatchObject({ iss: api.issuer, aud: registered._id, sub: user._id, nonce: expectedNonce, email });

    // Tampering is caught: another nonce, another state, another iss, a changed signature.
    const refused = (url: URL, nonce = expectedNonce, state = expectedState) =>
      oidc.implicitAuthentication(config, url, nonce, { expectedState: state }).then(
        () => 'accepted',
        (err: Json) => String(err.cause?.message ?? err.message),
      );
    const changed = (name: string, value: string) => {
      const url = new URL(callback);
      const fields = new URLSearchParams(url.hash.slice(1));
      fields.set(name, value);
      url.hash = fields.toString();
      return url;
    };
    expect(await refused(callback, 'another nonce')).toMatch(/nonce/);
    expect(await refused(callback, expectedNonce, 'another state')).toMatch(/state/);
    expect(await refused(changed('iss', 'https://evil.example'))).toMatch(/iss/);
    const idToken = new URLSearchParams(callback.hash.slice(1)).get('id_token')!;
    expect(await refused(changed('id_token', `${idToken.slice(0, -4)}AAAA`))).not.toBe('accepted');

    // By form_post, signed in and consented: the POSTed callback as openid-client takes it.
    const byForm = await authorize({ response_mode: 'form_post' });
    const { action, fields } = await formPostOf(byForm.step.res);
    const posted = new Request(action, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
    const formClaims = await oidc.implicitAuthentication(config, posted, byForm.checks.expectedNonce, { expectedState: byForm.checks.expectedState });
    expect(formClaims).toMatchObject({ sub: user._id, nonce: byForm.checks.expectedNonce });
  });
});
