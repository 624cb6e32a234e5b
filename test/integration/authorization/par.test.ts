// Pushed authorization requests (RFC 9126) over HTTP: push, then authorize
// with client_id + request_uri only; single use, expiry, binding to the client,
// and clients that must use PAR.
import * as oauth from 'oauth4webapi';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { s256Challenge } from '../../../lib/model/pkce.js';
import type { NewClientInput } from '../../../lib/model/clients.js';
import { hashSecret, newSecret } from '../../../lib/security/secrets.js';
import { createClient } from '../../../lib/store/clients.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { authorizeAs } from '../../support/token-flow.js';
import { postForm } from '../../support/http.js';
import { runCli } from '../../support/cli.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { withPkce } from '../../../tools/fixtures/pkce.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newRp, type FixtureRp } from '../../../tools/fixtures/clients.js';

const PASSWORD = 'pushed request password';
const REDIRECT = 'https://par-rp.example/callback';
const URN = 'urn:ietf:params:oauth:request_uri:';

const api = useTestApi();

const RP: NewClientInput = {
  name: 'PAR RP',
  redirectUris: [{ type: 'equals', value: REDIRECT }],
  allowedScopes: ['openid', 'profile', 'email', 'offline_access'],
  idTokenSignedResponseAlg: 'RS256',
};
const USER = { prefix: 'par', password: PASSWORD, name: 'Par User' };

const post = (path: string, body: Record<string, string> | URLSearchParams, headers: Record<string, string> = {}) => postForm(api.issuer, path, body, headers);

/** A push with the tests' PKCE challenge unless `params` names one. */
const push = (rp: FixtureRp, params: Record<string, string>) => post('/api/oauth/par', withPkce({ ...rp.body, ...params }), rp.headers);

function authorizeUrl(params: Record<string, string>) {
  const url = new URL('/api/oauth/authorize', api.issuer);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.href;
}

/** The browser part: sign-in and consent when asked; returns the redirect back to the client. */
async function authorize(agent: HttpUser, params: Record<string, string>, email: string): Promise<URL> {
  return authorizeAs(agent, authorizeUrl(params), email, PASSWORD);
}

/** An authorization request that must fail on Keyflow's error page, never redirecting. */
async function expectErrorPage(params: Record<string, string>, text: string) {
  const res = await fetch(authorizeUrl(params), { redirect: 'manual' });
  expect(res.status).toBe(400);
  expect(res.headers.get('location')).toBeNull();
  expect(res.headers.get('content-type')).toMatch(/text\/html/);
  expect(await res.text()).toContain(text);
}

describe('pushed authorization requests', () => {
  it('answers 201 with a request_uri the authorization endpoint accepts with client_id alone; the pushed parameters apply', async () => {
    const rp = await newRp(api.deps, RP);
    const { email, user } = await newUser(api.deps, USER);
    const verifier = newSecret() + 'xyz';
    const pushed = await push(rp, {
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'openid profile',
      state: 'pushed-state',
      nonce: 'pushed-nonce',
      code_challenge: s256Challenge(verifier),
      code_challenge_method: 'S256',
    });
    expect(pushed.res.status).toBe(201);
    expect(pushed.res.headers.get('cache-control')).toBe('no-store');
    expect(pushed.body).toEqual({ request_uri: expect.stringMatching(/^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/), expires_in: 90 });

    // Other parameters next to client_id + request_uri are ignored (RFC 9126 §4): the pushed ones apply.
    const agent = new HttpUser(api.issuer);
    const back = await authorize(agent, { client_id: rp.id, request_uri: pushed.body.request_uri, state: 'not-this-one', scope: 'openid email' }, email);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe('pushed-state');
    expect(back.searchParams.get('iss')).toBe(api.issuer);
    const code = back.searchParams.get('code')!;
    expect(code).toBeTruthy();

    const tokens = await post('/api/oauth/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }, rp.headers);
    expect(tokens.res.status).toBe(200);
    expect(tokens.body.scope).toBe('openid profile');
    const jwks = createRemoteJWKSet(new URL(`${api.issuer}/.well-known/jwks.json`));
    const id = await jwtVerify(tokens.body.id_token, jwks, { issuer: api.issuer, audience: rp.id });
    expect(id.payload).toMatchObject({ sub: user._id, nonce: 'pushed-nonce' });
  });

  it('refuses a request_uri used before, on the error page', async () => {
    const rp = await newRp(api.deps, RP);
    const { email } = await newUser(api.deps, USER);
    const pushed = await push(rp, { response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', state: 's' });
    const agent = new HttpUser(api.issuer);
    expect((await authorize(agent, { client_id: rp.id, request_uri: pushed.body.request_uri }, email)).searchParams.get('code')).toBeTruthy();
    await expectErrorPage({ client_id: rp.id, request_uri: pushed.body.request_uri }, 'request_uri');
    // Even for the same, signed-in browser.
    const again = await agent.get(authorizeUrl({ client_id: rp.id, request_uri: pushed.body.request_uri }));
    expect(again.res.status).toBe(400);
    expect(again.external).toBeUndefined();
  });

  it('refuses an expired request_uri', async () => {
    const rp = await newRp(api.deps, RP);
    const pushed = await push(rp, { response_type: 'code', redirect_uri: REDIRECT, scope: 'openid' });
    const opaque = (pushed.body.request_uri as string).slice(URN.length);
    const updated = await api.deps.store.expiring('par_requests').updateOne({ _id: hashSecret(opaque) }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    expect(updated.matchedCount).toBe(1);
    await expectErrorPage({ client_id: rp.id, request_uri: pushed.body.request_uri }, 'expired');
  });

  it('refuses the request_uri of another client without redirecting, and without using it up', async () => {
    const owner = await newRp(api.deps, RP);
    const other = await newRp(api.deps, RP);
    const { email } = await newUser(api.deps, USER);
    const pushed = await push(owner, { response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', state: 'mine' });
    await expectErrorPage({ client_id: other.id, request_uri: pushed.body.request_uri }, 'not pushed by this application');
    const back = await authorize(new HttpUser(api.issuer), { client_id: owner.id, request_uri: pushed.body.request_uri }, email);
    expect(back.searchParams.get('state')).toBe('mine');
    expect(back.searchParams.get('code')).toBeTruthy();
  });

  it('refuses unknown request_uris and unknown clients on the error page', async () => {
    const rp = await newRp(api.deps, RP);
    await expectErrorPage({ client_id: rp.id, request_uri: `${URN}${newSecret()}` }, 'request_uri');
    const pushed = await push(rp, { response_type: 'code', redirect_uri: REDIRECT, scope: 'openid' });
    await expectErrorPage({ client_id: 'nope', request_uri: pushed.body.request_uri }, 'Unknown application');
  });

  it('sends a client that requires PAR back with invalid_request when it uses the plain authorization endpoint', async () => {
    const rp = await newRp(api.deps, { ...RP, requirePushedAuthorizationRequests: true });
    const { email } = await newUser(api.deps, USER);
    const res = await fetch(authorizeUrl({ response_type: 'code', client_id: rp.id, redirect_uri: REDIRECT, scope: 'openid', state: 'plain' }), {
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(Object.fromEntries(back.searchParams)).toEqual({
      error: 'invalid_request',
      error_description: expect.stringContaining('pushed'),
      state: 'plain',
      iss: api.issuer,
    });
    // An unregistered redirect URI still gets the error page, never a redirect.
    await expectErrorPage({ response_type: 'code', client_id: rp.id, redirect_uri: 'https://evil.example/cb', scope: 'openid' }, 'Invalid redirect URI');
    // Through PAR it works.
    const pushed = await push(rp, { response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', state: 'pushed' });
    expect(pushed.res.status).toBe(201);
    const ok = await authorize(new HttpUser(api.issuer), { client_id: rp.id, request_uri: pushed.body.request_uri }, email);
    expect(ok.searchParams.get('code')).toBeTruthy();
  });

  it('accepts public clients (client_id and PKCE) and answers like the authorization endpoint, as JSON', async () => {
    const pub = await newRp(api.deps, { ...RP, public: true });
    const challenge = s256Challenge(newSecret() + 'abc');
    const ok = await push(pub, { response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256' });
    expect(ok.res.status).toBe(201);
    const noPkce = await post('/api/oauth/par', { ...pub.body, response_type: 'code', redirect_uri: REDIRECT, scope: 'openid' }, pub.headers);
    expect(noPkce.res.status).toBe(400);
    expect(noPkce.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });

    const rp = await newRp(api.deps, RP);
    const cases: [Record<string, string>, string][] = [
      [{ response_type: 'code', redirect_uri: 'https://evil.example/cb', scope: 'openid' }, 'invalid_request'],
      [{ response_type: 'code', scope: 'openid' }, 'invalid_request'],
      [{ response_type: 'token', redirect_uri: REDIRECT, scope: 'openid' }, 'unsupported_response_type'],
      [{ response_type: 'code', redirect_uri: REDIRECT, scope: 'openid admin:nothing' }, 'invalid_scope'],
      [{ response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', request_uri: `${URN}x` }, 'invalid_request'],
      [{ response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', request: 'eyJ.x.y' }, 'invalid_request_object'],
      [{ response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', client_id: 'someone-else' }, 'invalid_request'],
    ];
    for (const [params, error] of cases) {
      const r = await push(rp, params);
      expect([r.res.status, r.body, r.res.headers.get('location')]).toEqual([400, { error, error_description: expect.any(String) }, null]);
    }
    const repeated = new URLSearchParams({ response_type: 'code', redirect_uri: REDIRECT, scope: 'openid' });
    repeated.append('scope', 'profile');
    const rep = await post('/api/oauth/par', repeated, rp.headers);
    expect([rep.res.status, rep.body.error]).toEqual([400, 'invalid_request']);
  });

  it('requires client authentication and POST', async () => {
    const rp = await newRp(api.deps, RP);
    const wrong = await post(
      '/api/oauth/par',
      { response_type: 'code', redirect_uri: REDIRECT, scope: 'openid' },
      { authorization: `Basic ${Buffer.from(`${rp.id}:wrong`).toString('base64')}` },
    );
    expect(wrong.res.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    const none = await post('/api/oauth/par', { client_id: rp.id, response_type: 'code', redirect_uri: REDIRECT, scope: 'openid' });
    expect([none.res.status, none.body.error]).toEqual([400, 'invalid_client']);
    const get = await fetch(`${api.issuer}/api/oauth/par`);
    expect(get.status).toBe(405);
  });

  it('is advertised in discovery; the CLI sets require_pushed_authorization_requests', async () => {
    const doc = (await (await fetch(`${api.issuer}/.well-known/openid-configuration`)).json()) as Json;
    expect(doc.pushed_authorization_request_endpoint).toBe(`${api.issuer}/api/oauth/par`);
    expect(doc.require_pushed_authorization_requests).toBe(false);
    const created = await runCli(['clients', 'create', '--name', 'Strict RP', '--redirect-uri', REDIRECT, '--require-par']);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout).require_pushed_authorization_requests).toBe(true);
    const lax = await runCli(['clients', 'create', '--name', 'Lax RP', '--redirect-uri', REDIRECT]);
    expect(JSON.parse(lax.stdout).require_pushed_authorization_requests).toBe(false);
  });

  it('works with oauth4webapi: PAR with a resource, the code flow, then token exchange', async () => {
    const issuerUrl = new URL(api.issuer);
    const insecure = { [oauth.allowInsecureRequests]: true };
    const as = await oauth.processDiscoveryResponse(issuerUrl, await oauth.discoveryRequest(issuerUrl, { algorithm: 'oidc', ...insecure }));
    const callbackUri = 'http://127.0.0.1:9/callback';
    const { client: registered, clientSecret } = await createClient(api.deps.store, {
      name: 'oauth4webapi PAR',
      redirectUris: [{ type: 'equals', value: callbackUri }],
      allowedScopes: ['openid', 'profile'],
      idTokenSignedResponseAlg: 'RS256',
      requirePushedAuthorizationRequests: true,
      allowedResources: ['https://api.example/', 'https://downstream.example/'],
    });
    const client: oauth.Client = { client_id: registered._id, id_token_signed_response_alg: 'RS256' };
    const clientAuth = oauth.ClientSecretBasic(clientSecret!);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const params = new URLSearchParams({
      redirect_uri: callbackUri,
      response_type: 'code',
      scope: 'openid profile',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      resource: 'https://api.example/',
    });
    const parResponse = await oauth.pushedAuthorizationRequest(as, client, clientAuth, params, insecure);
    const pushed = await oauth.processPushedAuthorizationResponse(as, client, parResponse);
    expect(pushed.expires_in).toBe(90);

    const { email } = await newUser(api.deps, USER);
    const agent = new HttpUser(api.issuer);
    const authorizationUrl = new URL(as.authorization_endpoint!);
    authorizationUrl.search = new URLSearchParams({ client_id: client.client_id, request_uri: pushed.request_uri }).toString();
    const callback = await authorize(agent, Object.fromEntries(authorizationUrl.searchParams), email);
    const callbackParams = oauth.validateAuthResponse(as, client, callback, state);
    const tokenResponse = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, callbackParams, callbackUri, verifier, insecure);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenResponse, { requireIdToken: true });
    expect(JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString()).aud).toEqual([api.issuer, 'https://api.example/']);

    const exchangeResponse = await oauth.genericTokenEndpointRequest(
      as,
      client,
      clientAuth,
      'urn:ietf:params:oauth:grant-type:token-exchange',
      new URLSearchParams({
        subject_token: tokens.access_token,
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        scope: 'openid',
        audience: 'https://downstream.example/',
      }),
      insecure,
    );
    const exchanged = await oauth.processGenericTokenEndpointResponse(as, client, exchangeResponse);
    expect(exchanged).toMatchObject({ token_type: 'bearer', scope: 'openid', issued_token_type: 'urn:ietf:params:oauth:token-type:access_token' });
    expect(exchanged.refresh_token).toBeUndefined();
  });
});
