// The FAPI 2.0 Security Profile for a client in its mode (fapi_profile
// "fapi2"): what such a client must be when it is registered (private_key_jwt,
// exact https redirect URIs, the profile's algorithms, code only), and what
// its requests must be — pushed (PAR), PKCE S256, a DPoP proof at the token
// endpoint, client assertions for the issuer alone with the profile's
// algorithms — each refused with the spec's error; and the whole flow, ending
// in DPoP-bound tokens and a PS256 ID token. The api accepts the token
// endpoint as an assertion audience for other clients
// (CLIENT_ASSERTION_AUDIENCE=issuer-or-token-endpoint), so the FAPI rule shows.
import { createRemoteJWKSet, jwtVerify, SignJWT, UnsecuredJWT } from 'jose';
import { newClientKey, type ClientKey } from '../../support/client-keys.js';
import { dpopProof, FAPI_REDIRECT, type DpopKey, newDpopKey, newFapiClient, type FapiClient } from '../../support/fapi-client.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { useRegistration } from '../../support/registration.js';
import { authorizeAs, FLOW_PASSWORD } from '../../support/token-flow.js';
import { TEST_VERIFIER, withPkce } from '../../../tools/fixtures/pkce.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { skipTime } from '../../support/clock.js';
import { jwtClaims } from '../../support/http.js';

const api = useTestApi({ CLIENT_ASSERTION_AUDIENCE: 'issuer-or-token-endpoint' });
const tokenUrl = () => `${api.issuer}/api/oauth/token`;

/** A PAR request of `client` (PKCE S256 unless `params` replace it): the answer. */
const push = (client: FapiClient, params: Record<string, string>) =>
  client.post('/api/oauth/par', { response_type: 'code', redirect_uri: FAPI_REDIRECT, scope: 'openid offline_access', ...params });

/** A pushed, signed-in, consented request: the code and its verifier. */
async function authorizedCode(client: FapiClient): Promise<{ code: string; verifier: string }> {
  const pushed = await push(client, withPkce({ state: 'fapi-state' }));
  expect([pushed.res.status, pushed.body.error]).toEqual([201, undefined]);
  const { email } = await newUser(api.deps, { prefix: 'fapi', password: FLOW_PASSWORD });
  const url = `${api.issuer}/api/oauth/authorize?${new URLSearchParams({ client_id: client.id, request_uri: pushed.body.request_uri })}`;
  const back = await authorizeAs(new HttpUser(api.issuer), url, email, FLOW_PASSWORD);
  expect([back.origin + back.pathname, back.searchParams.get('state'), back.searchParams.get('iss')]).toEqual([FAPI_REDIRECT, 'fapi-state', api.issuer]);
  return { code: back.searchParams.get('code')!, verifier: TEST_VERIFIER };
}

const redeem = async (client: FapiClient, code: string, verifier: string, headers: Record<string, string>) =>
  client.post('/api/oauth/token', { grant_type: 'authorization_code', code, redirect_uri: FAPI_REDIRECT, code_verifier: verifier }, headers);

describe('a FAPI 2.0 client', () => {
  it('completes a pushed code flow with PKCE, private_key_jwt and DPoP: DPoP-bound tokens, a PS256 ID token, a refresh token not rotated', async () => {
    const client = await newFapiClient(api);
    const { code, verifier } = await authorizedCode(client);
    const tokens = await redeem(client, code, verifier, { dpop: await dpopProof(client.dpop, 'POST', tokenUrl()) });
    expect([tokens.res.status, tokens.body.error, tokens.body.token_type]).toEqual([200, undefined, 'DPoP']);
    const jwks = createRemoteJWKSet(new URL(`${api.issuer}/.well-known/jwks.json`));
    const id = await jwtVerify(tokens.body.id_token, jwks, { issuer: api.issuer, audience: client.id, algorithms: ['PS256'] });
    expect(id.payload.sub).toEqual(expect.any(String));
    const access = await jwtVerify(tokens.body.access_token, jwks, { algorithms: ['PS256'] });
    expect(access.payload.cnf).toEqual({ jkt: client.dpop.jkt });

    // A refresh needs the proof of the same key as well.
    const bare = await client.post('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token });
    expect([bare.res.status, bare.body.error]).toEqual([400, 'invalid_request']);
    const refreshed = await client.post(
      '/api/oauth/token',
      { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token },
      { dpop: await dpopProof(client.dpop, 'POST', tokenUrl()) },
    );
    expect([refreshed.res.status, refreshed.body.token_type, refreshed.body.refresh_token]).toEqual([200, 'DPoP', undefined]);
    // Not rotated (FAPI 2.0 §5.3.2.1): the same refresh token serves again, with a proof of any key of the client's.
    const again = await client.post(
      '/api/oauth/token',
      { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token },
      { dpop: await dpopProof(await newDpopKey(), 'POST', tokenUrl()) },
    );
    expect([again.res.status, again.body.token_type]).toEqual([200, 'DPoP']);
  });

  it('must push its requests: a request by the query is refused back at the redirect URI', async () => {
    const client = await newFapiClient(api);
    const query = new URLSearchParams(withPkce({ response_type: 'code', client_id: client.id, redirect_uri: FAPI_REDIRECT, scope: 'openid', state: 's' }));
    const res = await fetch(`${api.issuer}/api/oauth/authorize?${query}`, { redirect: 'manual' });
    const to = new URL(res.headers.get('location')!);
    expect([res.status, to.origin + to.pathname, to.searchParams.get('error'), to.searchParams.get('state')]).toEqual([
      303,
      FAPI_REDIRECT,
      'invalid_request',
      's',
    ]);
    expect(to.searchParams.get('error_description')).toMatch(/pushed authorization requests/);
  });

  it('may push only response_type=code with PKCE S256', async () => {
    const client = await newFapiClient(api, { allowedScopes: ['openid'] });
    const noPkce = await push(client, { scope: 'openid' });
    expect([noPkce.res.status, noPkce.body.error]).toEqual([400, 'invalid_request']);
    expect(noPkce.body.error_description).toMatch(/PKCE/);
    const implicit = await push(client, { ...withPkce({}), response_type: 'id_token', nonce: 'n', scope: 'openid' });
    // RFC 6749 §4.1.2.1: a response type this client may not use.
    expect([implicit.res.status, implicit.body.error]).toEqual([400, 'unauthorized_client']);
  });

  it('gets no token without a DPoP proof, nor with a proof of an algorithm outside the profile', async () => {
    const client = await newFapiClient(api);
    const first = await authorizedCode(client);
    const bare = await redeem(client, first.code, first.verifier, {});
    expect([bare.res.status, bare.body.error]).toEqual([400, 'invalid_request']);
    expect(bare.body.error_description).toMatch(/DPoP proof/);
    const rsaKey = await newDpopKey('RS256');
    const second = await authorizedCode(client);
    const rs256 = await redeem(client, second.code, second.verifier, { dpop: await dpopProof(rsaKey, 'POST', tokenUrl()) });
    expect([rs256.res.status, rs256.body.error]).toEqual([400, 'invalid_dpop_proof']);
  });

  it("binds the code to the DPoP key of the push (RFC 9449 §10): another key's proof gets no token; dpop_jkt must agree", async () => {
    const client = await newFapiClient(api);
    const parUrl = `${api.issuer}/api/oauth/par`;
    // dpop_jkt alone binds (no proof needed at the push); with a proof of another key it is refused.
    const other = await newDpopKey();
    const alone = await push(client, withPkce({ dpop_jkt: other.jkt }));
    expect([alone.res.status, alone.body.error]).toEqual([201, undefined]);
    const both = await client.post('/api/oauth/par', withPkce({ response_type: 'code', redirect_uri: FAPI_REDIRECT, scope: 'openid', dpop_jkt: other.jkt }), {
      dpop: await dpopProof(client.dpop, 'POST', parUrl),
    });
    expect([both.res.status, both.body.error]).toEqual([400, 'invalid_dpop_proof']);
    const malformed = await push(client, withPkce({ dpop_jkt: 'not-a-thumbprint' }));
    expect([malformed.res.status, malformed.body.error]).toEqual([400, 'invalid_request']);

    // Pushed with a proof of the client's key: a code the token endpoint redeems only with that key.
    const pushed = await client.post('/api/oauth/par', withPkce({ response_type: 'code', redirect_uri: FAPI_REDIRECT, scope: 'openid' }), {
      dpop: await dpopProof(client.dpop, 'POST', parUrl),
    });
    expect(pushed.res.status).toBe(201);
    const { email } = await newUser(api.deps, { prefix: 'fapi-jkt', password: FLOW_PASSWORD });
    const url = `${api.issuer}/api/oauth/authorize?${new URLSearchParams({ client_id: client.id, request_uri: pushed.body.request_uri })}`;
    const back = await authorizeAs(new HttpUser(api.issuer), url, email, FLOW_PASSWORD);
    const wrongKey = await redeem(client, back.searchParams.get('code')!, TEST_VERIFIER, { dpop: await dpopProof(other, 'POST', tokenUrl()) });
    expect([wrongKey.res.status, wrongKey.body.error]).toEqual([400, 'invalid_grant']);
    expect(wrongKey.body.error_description).toMatch(/dpop_jkt/);

    // dpop_jkt alone (no proof at the push) binds the same way; the right key redeems.
    const bound = await push(client, withPkce({ dpop_jkt: client.dpop.jkt }));
    const again = await authorizeAs(
      new HttpUser(api.issuer),
      `${api.issuer}/api/oauth/authorize?${new URLSearchParams({ client_id: client.id, request_uri: bound.body.request_uri })}`,
      email,
      FLOW_PASSWORD,
    );
    const redeemed = await redeem(client, again.searchParams.get('code')!, TEST_VERIFIER, { dpop: await dpopProof(client.dpop, 'POST', tokenUrl()) });
    expect([redeemed.res.status, redeemed.body.token_type]).toEqual([200, 'DPoP']);
  });

  it('authenticates only with an assertion for the issuer, signed with PS256, ES256 or EdDSA', async () => {
    const introspect = (auth: Record<string, string>) =>
      fetch(`${api.issuer}/api/oauth/introspect`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: 'unknown', ...auth }),
      });
    const client = await newFapiClient(api);
    expect((await introspect(await client.authentication())).status).toBe(200);
    // The token endpoint as audience: accepted for other clients on this api, not for a FAPI 2.0 client.
    const tokenAud = await introspect(await client.authentication({ aud: tokenUrl() }));
    expect([tokenAud.status, ((await tokenAud.json()) as Json).error]).toEqual([400, 'invalid_client']);
    const plain = await newFapiClient(api, { fapiProfile: null, idTokenSignedResponseAlg: 'RS256' });
    expect((await introspect(await plain.authentication({ aud: tokenUrl() }))).status).toBe(200);
    // An RS256 key: registered, but not an algorithm of the profile.
    const rsa = await newClientKey('RS256');
    const withRsa = await newFapiClient(api, {}, [rsa]);
    const rs256 = await introspect(await withRsa.authentication({ key: rsa }));
    const body = (await rs256.json()) as Json;
    expect([rs256.status, body.error, body.error_description]).toEqual([400, 'invalid_client', 'client_assertion algorithms: PS256, ES256, EdDSA']);
  });
});

/** Puts a client into a profile (or out of it), as an operator would, past every api's client cache. */
async function setFapiProfile(clientId: string, fapiProfile: 'fapi2' | null) {
  await api.deps.store.clients.updateOne({ _id: clientId }, { $set: { fapiProfile } });
  skipTime(2_100);
}

describe("a FAPI 2.0 client and the grants outside the profile's", () => {
  const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';
  const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

  it('cannot start the device flow: unauthorized_client, and no device code exists', async () => {
    const client = await newFapiClient(api);
    const r = await client.post('/api/oauth/device_authorization', { scope: 'openid' });
    expect([r.res.status, r.body.error, r.body.device_code]).toEqual([400, 'unauthorized_client', undefined]);
  });

  it('gets no token through the device grant or token exchange, with a DPoP proof or without: unauthorized_client', async () => {
    // A device code started while the client was outside the profile is refused once it is in it.
    const client = await newFapiClient(api, { fapiProfile: null, idTokenSignedResponseAlg: 'RS256' });
    const started = await client.post('/api/oauth/device_authorization', { scope: 'openid' });
    expect([started.res.status, started.body.device_code]).toEqual([200, expect.any(String)]);
    await setFapiProfile(client.id, 'fapi2');
    const { code, verifier } = await authorizedCode(client);
    const tokens = await redeem(client, code, verifier, { dpop: await dpopProof(client.dpop, 'POST', tokenUrl()) });
    expect([tokens.res.status, tokens.body.token_type]).toEqual([200, 'DPoP']);
    const attempts: Record<string, string>[] = [
      { grant_type: DEVICE, device_code: started.body.device_code },
      { grant_type: EXCHANGE, subject_token: tokens.body.access_token, subject_token_type: 'urn:ietf:params:oauth:token-type:access_token' },
    ];
    for (const body of attempts) {
      for (const headers of [{}, { dpop: await dpopProof(client.dpop, 'POST', tokenUrl()) }] as Record<string, string>[]) {
        const r = await client.post('/api/oauth/token', body, headers);
        expect([body.grant_type, r.res.status, r.body.error, r.body.access_token]).toEqual([body.grant_type, 400, 'unauthorized_client', undefined]);
      }
    }
  });

  it('refreshes a family begun outside the profile only with a DPoP proof, into DPoP-bound access tokens', async () => {
    const client = await newFapiClient(api, { fapiProfile: null, idTokenSignedResponseAlg: 'RS256' });
    const { email } = await newUser(api.deps, { prefix: 'fapi-switch', password: FLOW_PASSWORD });
    const url = `${api.issuer}/api/oauth/authorize?${new URLSearchParams(
      withPkce({ response_type: 'code', client_id: client.id, redirect_uri: FAPI_REDIRECT, scope: 'openid offline_access' }),
    )}`;
    const back = await authorizeAs(new HttpUser(api.issuer), url, email, FLOW_PASSWORD);
    const plain = await redeem(client, back.searchParams.get('code')!, TEST_VERIFIER, {});
    expect([plain.res.status, plain.body.token_type]).toEqual([200, 'Bearer']);
    await setFapiProfile(client.id, 'fapi2');
    const refresh = async (headers: Record<string, string>) =>
      client.post('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: plain.body.refresh_token }, headers);
    const bare = await refresh({});
    expect([bare.res.status, bare.body.error, bare.body.access_token]).toEqual([400, 'invalid_request', undefined]);
    const bound = await refresh({ dpop: await dpopProof(client.dpop, 'POST', tokenUrl()) });
    expect([bound.res.status, bound.body.token_type]).toEqual([200, 'DPoP']);
    expect(jwtClaims(bound.body.access_token).cnf).toEqual({ jkt: client.dpop.jkt });
  });
});

describe('signed request objects (FAPI 2.0 Message Signing, RFC 9101)', () => {
  const now = () => Math.floor(Date.now() / 1000);
  /**
   * A request object of `client` pushed through PAR, signed with `key` (the client's own unless given), with these
   * claims over the defaults; `dpop`: with a DPoP proof of that key.
   */
  async function pushObject(client: FapiClient, claims: Record<string, unknown> = {}, { key = client.key, dpop }: { key?: ClientKey; dpop?: DpopKey } = {}) {
    const body = {
      iss: client.id,
      aud: api.issuer,
      client_id: client.id,
      response_type: 'code',
      redirect_uri: FAPI_REDIRECT,
      scope: 'openid',
      ...withPkce({}),
      nbf: now(),
      exp: now() + 300,
      ...claims,
    };
    const defined = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
    const jwt = await new SignJWT(defined).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'oauth-authz-req+jwt' }).sign(key.privateKey);
    return client.post('/api/oauth/par', { request: jwt }, dpop ? { dpop: await dpopProof(dpop, 'POST', `${api.issuer}/api/oauth/par`) } : undefined);
  }

  it("accepts one signed with the profile's algorithms, with exp and nbf", async () => {
    const client = await newFapiClient(api, { requireSignedRequestObject: true });
    const pushed = await pushObject(client);
    expect([pushed.res.status, pushed.body.error]).toEqual([201, undefined]);
  });

  it.each([
    ['without nbf', { nbf: undefined }, /nbf/],
    ['without exp', { exp: undefined }, /exp/],
    [
      'with an nbf more than an hour old',
      { nbf: Math.floor(Date.now() / 1000) - 3700, exp: Math.floor(Date.now() / 1000) + 60 },
      /nbf is at most 3600 seconds old/,
    ],
  ])('refuses one %s (invalid_request_object)', async (_what, claims, message) => {
    const client = await newFapiClient(api);
    const pushed = await pushObject(client, claims);
    expect([pushed.res.status, pushed.body.error]).toEqual([400, 'invalid_request_object']);
    expect(pushed.body.error_description).toMatch(message);
  });

  it('refuses one signed with RS256 (a key the client registered, an algorithm outside the profile) and an unsigned one', async () => {
    const rsa = await newClientKey('RS256');
    const client = await newFapiClient(api);
    const withRsa = await newFapiClient(api, {}, [rsa]);
    const rs256 = await pushObject(withRsa, {}, { key: rsa });
    expect([rs256.res.status, rs256.body.error, rs256.body.error_description]).toEqual([
      400,
      'invalid_request_object',
      "a FAPI 2.0 client's request objects are signed with PS256, ES256, EdDSA",
    ]);
    const unsigned = new UnsecuredJWT({ iss: client.id, aud: api.issuer, response_type: 'code', redirect_uri: FAPI_REDIRECT, scope: 'openid' }).encode();
    const refused = await client.post('/api/oauth/par', { request: unsigned });
    expect([refused.res.status, refused.body.error]).toEqual([400, 'invalid_request_object']);
  });

  it('takes dpop_jkt from inside the object: a push whose DPoP proof is of another key is refused', async () => {
    const client = await newFapiClient(api);
    const other = await newDpopKey();
    const pushed = await pushObject(client, { dpop_jkt: other.jkt }, { dpop: client.dpop });
    expect([pushed.res.status, pushed.body.error]).toEqual([400, 'invalid_dpop_proof']);
  });

  it('with require_signed_request_object, refuses a push of plain parameters', async () => {
    const client = await newFapiClient(api, { requireSignedRequestObject: true });
    const plain = await push(client, withPkce({}));
    expect([plain.res.status, plain.body.error]).toEqual([400, 'invalid_request']);
    expect(plain.body.error_description).toMatch(/require_signed_request_object/);
  });
});

describe('registering a FAPI 2.0 client', () => {
  const registration = useRegistration(api, 'fapi-owner');
  const register = (metadata: Record<string, unknown>) => registration.register({ client_name: 'FAPI', redirect_uris: [FAPI_REDIRECT], ...metadata });

  it('gives it PS256 unless it names another of the profile, and shows the profile', async () => {
    const key = await newClientKey('ES256');
    const ok = await register({ fapi_profile: 'fapi2', token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.jwk] } });
    expect([ok.status, ok.body.fapi_profile, ok.body.id_token_signed_response_alg]).toEqual([201, 'fapi2', 'PS256']);
    const pq = await register({
      fapi_profile: 'fapi2',
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [key.jwk] },
      id_token_signed_response_alg: 'ML-DSA-65',
    });
    expect([pq.status, pq.body.id_token_signed_response_alg]).toEqual([201, 'ML-DSA-65']);
  });

  it.each([
    ['a client secret', { token_endpoint_auth_method: 'client_secret_basic' }, /a FAPI 2\.0 client authenticates with private_key_jwt/],
    ['an http redirect URI', { redirect_uris: ['http://127.0.0.1/cb'] }, /redirect URIs are exact https URIs/],
    ['RS256 ID tokens', { id_token_signed_response_alg: 'RS256' }, /id_token_signed_response_alg is one of PS256, ES256, ML-DSA-65/],
    ['RS256 request objects', { request_object_signing_alg: 'RS256' }, /request_object_signing_alg is one of PS256, ES256, EdDSA/],
    ['the implicit flow', { response_types: ['code', 'id_token'], grant_types: ['authorization_code', 'implicit'] }, /response_type code only/],
    ['an unknown profile', { fapi_profile: 'fapi1' }, /fapi_profile must be fapi2/],
    [
      'the device grant',
      { grant_types: ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code'] },
      /only the grant types authorization_code, refresh_token, client_credentials, not urn:ietf:params:oauth:grant-type:device_code/,
    ],
    ['token exchange', { grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:token-exchange'] }, /token-exchange/],
  ])('refuses %s with invalid_client_metadata or invalid_redirect_uri, naming the rule', async (_what, metadata, message) => {
    const key = await newClientKey('ES256');
    const r = await register({ fapi_profile: 'fapi2', token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.jwk] }, ...metadata });
    expect(r.status).toBe(400);
    expect(['invalid_client_metadata', 'invalid_redirect_uri']).toContain(r.body.error);
    expect(r.body.error_description).toMatch(message);
  });
});
