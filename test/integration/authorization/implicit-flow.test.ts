// The OpenID Connect implicit flow (OIDC Core §3.2) over HTTP, for clients
// registered for it through dynamic registration: response_type=id_token and
// `id_token token` answered in the fragment (their default) or by form_post;
// the ID token (signature, nonce, at_hash, the scopes' claims when no access
// token comes with it), the access token at UserInfo and its revocation; and
// the refusals: a client not registered for it, no nonce, response_mode=query,
// prompt=none. The api runs with ID_TOKEN_CLAIMS=requested, so that where the
// scopes' claims go shows. (standards/rp-library.test.ts has openid-client validate
// the fragment; implicit-browser.test.ts runs it in Chromium.)
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { revokeGrantAndFamily } from '../../../lib/grants/revocation.js';
import { newSecret } from '../../../lib/security/secrets.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { useRegistration } from '../../support/registration.js';
import { formPostOf } from '../../support/form-post.js';
import { getUserinfo, jwtClaims } from '../../support/http.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { basicAuth, newRp } from '../../../tools/fixtures/clients.js';

const PASSWORD = 'implicit flow password';
const NAME = 'Implicit User';
const REDIRECT = 'https://implicit-rp.example/cb';
const AUTHORIZE = '/api/oauth/authorize';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

let jwks: ReturnType<typeof createRemoteJWKSet>;

const api = useTestApi({ ID_TOKEN_CLAIMS: 'requested' });
const { register } = useRegistration(api, 'implicit-owner');
beforeAll(() => {
  jwks = createRemoteJWKSet(new URL(`${api.issuer}/.well-known/jwks.json`));
});

interface Registered {
  client_id: string;
  client_secret?: string;
}

/** A client registered for `responseTypes` (with the implicit grant type); confidential unless `extra` says otherwise. */
async function implicitClient(responseTypes: string[], extra: Record<string, unknown> = {}): Promise<Registered> {
  const { status, body } = await register({
    client_name: 'Implicit RP',
    redirect_uris: [REDIRECT],
    scope: 'openid profile email offline_access',
    grant_types: ['implicit'],
    response_types: responseTypes,
    id_token_signed_response_alg: 'RS256',
    ...extra,
  });
  expect([status, body.error_description]).toEqual([201, undefined]);
  return body;
}

/** An implicit request's parameters (no PKCE: there is no code), with a fresh state and nonce; `extra` adds, overrides, or (undefined) removes. */
function request(clientId: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const params: Record<string, string | undefined> = {
    response_type: 'id_token',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'openid profile email',
    state: `st-${newSecret().slice(0, 8)}`,
    nonce: `n-${newSecret().slice(0, 12)}`,
    ...extra,
  };
  return Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
}

const authorizePath = (params: Record<string, string>) => `${AUTHORIZE}?${new URLSearchParams(params)}`;

/** A new user signs in and allows the request; returns the agent (signed in, consented), the user and Keyflow's last answer. */
async function signInAndAllow(params: Record<string, string>) {
  const { email, user } = await newUser(api.deps, { prefix: 'implicit', password: PASSWORD, name: NAME });
  const agent = new HttpUser(api.issuer);
  let step = await agent.get(authorizePath(params));
  step = await agent.signIn(step, email, PASSWORD);
  step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
  return { agent, user, email, step };
}

/** An answer in the fragment: a 303 to the redirect URI, nothing in its query, the parameters form-encoded in its fragment. */
function fragmentAnswer(res: Response): Record<string, string> {
  expect(res.status).toBe(303);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const back = new URL(res.headers.get('location')!);
  expect(back.origin + back.pathname).toBe(REDIRECT);
  expect(back.search).toBe('');
  expect(back.hash.startsWith('#')).toBe(true);
  return Object.fromEntries(new URLSearchParams(back.hash.slice(1)));
}

/** A fresh, signed-out request's answer (no redirect followed). */
const unsignedAnswer = (params: Record<string, string>) => fetch(`${api.issuer}${authorizePath(params)}`, { redirect: 'manual' });

async function verifiedIdToken(idToken: string, clientId: string): Promise<JWTPayload> {
  expect(decodeProtectedHeader(idToken).alg).toBe('RS256');
  return (await jwtVerify(idToken, jwks, { issuer: api.issuer, audience: clientId, algorithms: ['RS256'] })).payload;
}

/** OIDC Core §3.2.2.9: the left half of the access token's SHA-256 (RS256), base64url. */
const atHash = (accessToken: string) => createHash('sha256').update(accessToken, 'ascii').digest().subarray(0, 16).toString('base64url');

const userinfo = (accessToken: string) => getUserinfo(api.issuer, accessToken);

const errorFields = (error: string, state: string) => ({ error, error_description: expect.any(String), state, iss: api.issuer });

describe('response_type=id_token', () => {
  it('answers in the fragment with an ID token alone: signed, with the nonce, no at_hash, and the scopes’ claims in it (there is no UserInfo to ask)', async () => {
    const rp = await implicitClient(['id_token']);
    const params = request(rp.client_id);
    const { user, email, step } = await signInAndAllow(params);
    const fields = fragmentAnswer(step.res);
    expect(fields).toEqual({ id_token: expect.any(String), state: params.state, iss: api.issuer });

    const claims = await verifiedIdToken(fields.id_token!, rp.client_id);
    expect(claims).toMatchObject({
      iss: api.issuer,
      aud: rp.client_id,
      sub: user._id,
      nonce: params.nonce,
      auth_time: expect.any(Number),
      acr: 'pwd',
      amr: ['pwd'],
      sid: expect.any(String),
      // ID_TOKEN_CLAIMS=requested, yet they are here: OIDC Core §5.4, no access token was issued.
      email,
      email_verified: expect.any(Boolean),
      name: NAME,
      preferred_username: expect.any(String),
    });
    expect(claims.at_hash).toBeUndefined();
    expect(claims.c_hash).toBeUndefined();
  });

  it('puts the claims asked for at UserInfo (claims parameter) in the ID token: there is no UserInfo to ask', async () => {
    const rp = await implicitClient(['id_token']);
    const params = request(rp.client_id, { scope: 'openid', claims: JSON.stringify({ userinfo: { email: null }, id_token: { name: null } }) });
    const { email, step } = await signInAndAllow(params);
    const claims = await verifiedIdToken(fragmentAnswer(step.res).id_token!, rp.client_id);
    expect(claims).toMatchObject({ email, name: NAME, nonce: params.nonce });
    expect(claims.preferred_username).toBeUndefined();
  });

  it('answers by form_post when asked, with the same fields', async () => {
    const rp = await implicitClient(['id_token']);
    const first = await signInAndAllow(request(rp.client_id));
    const params = request(rp.client_id, { response_mode: 'form_post' });
    const res = await first.agent.request(authorizePath(params));
    expect(res.headers.get('cache-control')).toBe('no-store');
    const form = await formPostOf(res);
    expect(form).toEqual({ action: REDIRECT, fields: { id_token: expect.any(String), state: params.state, iss: api.issuer } });
    expect(await verifiedIdToken(form.fields.id_token!, rp.client_id)).toMatchObject({ sub: first.user._id, nonce: params.nonce });
  });

  it('takes response_type=id_token from a pushed request too, and answers in the fragment', async () => {
    const rp = await implicitClient(['id_token']);
    const first = await signInAndAllow(request(rp.client_id));
    const params = request(rp.client_id);
    const pushed = await fetch(`${api.issuer}/api/oauth/par`, {
      method: 'POST',
      headers: { ...FORM, authorization: basicAuth(rp.client_id, rp.client_secret!) },
      body: new URLSearchParams(params),
    });
    expect(pushed.status).toBe(201);
    const { request_uri: requestUri } = (await pushed.json()) as Json;
    const fields = fragmentAnswer(await first.agent.request(authorizePath({ client_id: rp.client_id, request_uri: requestUri })));
    expect(await verifiedIdToken(fields.id_token!, rp.client_id)).toMatchObject({ nonce: params.nonce });
  });
});

describe('response_type=id_token token', () => {
  it('answers in the fragment with an ID token whose at_hash names the access token; the access token works at UserInfo; no refresh token, and nothing for the token endpoint to redeem', async () => {
    // A public client (a single-page application): no secret, and no PKCE, since there is no code.
    const rp = await implicitClient(['id_token token'], { token_endpoint_auth_method: 'none' });
    // offline_access is ignored: no code, no refresh token (OIDC Core §11).
    const params = request(rp.client_id, { response_type: 'id_token token', scope: 'openid profile email offline_access' });
    const { user, email, step } = await signInAndAllow(params);
    const fields = fragmentAnswer(step.res);
    expect(fields).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: '3600',
      scope: 'openid profile email',
      id_token: expect.any(String),
      state: params.state,
      iss: api.issuer,
    });

    const claims = await verifiedIdToken(fields.id_token!, rp.client_id);
    expect(claims).toMatchObject({ sub: user._id, nonce: params.nonce, at_hash: atHash(fields.access_token!), acr: 'pwd', sid: expect.any(String) });
    // ID_TOKEN_CLAIMS=requested, as for the code flow: an access token came with it, UserInfo has them.
    expect(claims.email).toBeUndefined();
    expect(claims.name).toBeUndefined();

    // An RFC 9068 access token of a grant, bound to nothing (no DPoP in the front channel).
    expect(decodeProtectedHeader(fields.access_token!).typ).toBe('at+jwt');
    const access = jwtClaims(fields.access_token!);
    expect(access).toMatchObject({ iss: api.issuer, sub: user._id, client_id: rp.client_id, scope: 'openid profile email', grant_id: expect.any(String) });
    expect(access.cnf).toBeUndefined();
    const info = await userinfo(fields.access_token!);
    expect(info.status).toBe(200);
    expect(await info.json()).toMatchObject({ sub: user._id, email, name: NAME });

    // The token endpoint has no implicit grant: there is nothing to redeem.
    const token = await fetch(`${api.issuer}/api/oauth/token`, {
      method: 'POST',
      headers: FORM,
      body: new URLSearchParams({ grant_type: 'implicit', client_id: rp.client_id }),
    });
    expect([token.status, ((await token.json()) as Json).error]).toEqual([400, 'unsupported_grant_type']);
  });

  it('takes the values in either order, answers by form_post when asked, and the grant’s revocation (or the token’s) stops the access token', async () => {
    const rp = await implicitClient(['id_token token']);
    const first = await signInAndAllow(request(rp.client_id, { response_type: 'token id_token' }));
    const firstFields = fragmentAnswer(first.step.res);
    expect(firstFields.access_token).toEqual(expect.any(String));

    const params = request(rp.client_id, { response_type: 'id_token token', response_mode: 'form_post' });
    const form = await formPostOf(await first.agent.request(authorizePath(params)));
    expect(Object.keys(form.fields).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'iss', 'scope', 'state', 'token_type']);
    const claims = await verifiedIdToken(form.fields.id_token!, rp.client_id);
    expect(claims).toMatchObject({ nonce: params.nonce, at_hash: atHash(form.fields.access_token!) });
    expect((await userinfo(form.fields.access_token!)).status).toBe(200);

    // Revoking the grant (what a replayed code or a deleted client does) stops its access token.
    const flows = { client: api.deps.temporal.client, taskQueue: api.deps.config.temporal.taskQueue };
    await revokeGrantAndFamily({ store: api.deps.store, flows }, jwtClaims(form.fields.access_token!).grant_id, 'test');
    expect((await userinfo(form.fields.access_token!)).status).toBe(401);

    // RFC 7009: the client revokes the other one.
    expect((await userinfo(firstFields.access_token!)).status).toBe(200);
    const revoked = await fetch(`${api.issuer}/api/oauth/revoke`, {
      method: 'POST',
      headers: { ...FORM, authorization: basicAuth(rp.client_id, rp.client_secret!) },
      body: new URLSearchParams({ token: firstFields.access_token!, token_type_hint: 'access_token' }),
    });
    expect(revoked.status).toBe(200);
    expect((await userinfo(firstFields.access_token!)).status).toBe(401);
  });
});

describe('refusals', () => {
  it('refuses a client not registered for the response type with unauthorized_client, in the fragment', async () => {
    // An operator's client (code only, the default) and a registered one that asked for id_token alone.
    const codeOnly = await newRp(api.deps, {
      name: 'Code only RP',
      redirectUris: [{ type: 'equals', value: REDIRECT }],
      allowedScopes: ['openid', 'profile', 'email'],
      idTokenSignedResponseAlg: 'RS256',
    });
    const idTokenOnly = await implicitClient(['id_token']);
    const registeredCodeOnly = await register({ client_name: 'Registered code RP', redirect_uris: [REDIRECT], response_types: ['code'] });
    expect(registeredCodeOnly.status).toBe(201);
    for (const [clientId, responseType] of [
      [codeOnly.id, 'id_token'],
      [codeOnly.id, 'id_token token'],
      [registeredCodeOnly.body.client_id, 'id_token'],
      [idTokenOnly.client_id, 'id_token token'],
    ] as const) {
      const params = request(clientId, { response_type: responseType });
      expect([clientId, responseType, fragmentAnswer(await unsignedAnswer(params))]).toEqual([
        clientId,
        responseType,
        errorFields('unauthorized_client', params.state!),
      ]);
    }
  });

  it('refuses a request without nonce, or without openid, with their errors in the fragment', async () => {
    const rp = await implicitClient(['id_token', 'id_token token']);
    for (const responseType of ['id_token', 'id_token token']) {
      const noNonce = request(rp.client_id, { response_type: responseType, nonce: undefined });
      expect(fragmentAnswer(await unsignedAnswer(noNonce))).toEqual(errorFields('invalid_request', noNonce.state!));
      const noOpenid = request(rp.client_id, { response_type: responseType, scope: 'profile' });
      expect(fragmentAnswer(await unsignedAnswer(noOpenid))).toEqual(errorFields('invalid_scope', noOpenid.state!));
    }
  });

  it('refuses response_mode=query (tokens in a query string), and a repeated or unknown mode, answering in the fragment', async () => {
    const rp = await implicitClient(['id_token', 'id_token token']);
    for (const [responseType, mode] of [
      ['id_token', 'query'],
      ['id_token token', 'query'],
      ['id_token', 'web_message'],
    ]) {
      const params = request(rp.client_id, { response_type: responseType, response_mode: mode });
      const fields = fragmentAnswer(await unsignedAnswer(params));
      expect(fields).toEqual(errorFields('invalid_request', params.state!));
      expect(fields.error_description).toContain('response_mode');
    }
    const twice = new URLSearchParams(request(rp.client_id, { response_mode: 'form_post' }));
    twice.append('response_mode', 'form_post');
    const repeated = fragmentAnswer(await fetch(`${api.issuer}${AUTHORIZE}?${twice}`, { redirect: 'manual' }));
    expect(repeated).toEqual(errorFields('invalid_request', twice.get('state')!));
  });

  it('sends prompt=none errors in the fragment: login_required signed out, consent_required before consent', async () => {
    const rp = await implicitClient(['id_token token']);
    const signedOut = request(rp.client_id, { response_type: 'id_token token', prompt: 'none' });
    expect(fragmentAnswer(await unsignedAnswer(signedOut))).toEqual(errorFields('login_required', signedOut.state!));

    // Signed in for another client only: this one was never allowed.
    const other = await implicitClient(['id_token']);
    const { agent } = await signInAndAllow(request(other.client_id));
    const notConsented = request(rp.client_id, { response_type: 'id_token token', prompt: 'none' });
    expect(fragmentAnswer(await agent.request(authorizePath(notConsented)))).toEqual(errorFields('consent_required', notConsented.state!));

    // Denied at the consent page: access_denied, in the fragment as well.
    const denied = request(rp.client_id, { response_type: 'id_token token' });
    const consent = await agent.get(authorizePath(denied));
    const answer = await agent.submit(await consent.res.text(), '/consent', { decision: 'deny' });
    expect(fragmentAnswer(answer.res)).toEqual(errorFields('access_denied', denied.state!));
  });
});

describe('registration and discovery', () => {
  it('registers id_token and id_token token only with the implicit grant type, and refuses token alone', async () => {
    const both = await register({
      client_name: 'Both flows RP',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'implicit'],
      response_types: ['code', 'token id_token', 'id_token'],
    });
    expect(both.status).toBe(201);
    expect(both.body).toMatchObject({ grant_types: ['authorization_code', 'implicit'], response_types: ['code', 'id_token token', 'id_token'] });

    for (const metadata of [
      { response_types: ['id_token'] }, // grant_types defaults to authorization_code
      { response_types: ['id_token'], grant_types: ['authorization_code'] },
      { response_types: ['code'], grant_types: ['authorization_code', 'implicit'] },
      { response_types: ['token'], grant_types: ['implicit'] },
      { response_types: ['code id_token'], grant_types: ['authorization_code', 'implicit'] },
    ]) {
      const { status, body } = await register({ client_name: 'x', redirect_uris: [REDIRECT], ...metadata });
      expect([JSON.stringify(metadata), status, body.error]).toEqual([JSON.stringify(metadata), 400, 'invalid_client_metadata']);
    }
  });

  it('advertises the implicit response types, the fragment mode and the implicit grant type', async () => {
    const doc = (await (await fetch(`${api.issuer}/.well-known/openid-configuration`)).json()) as Json;
    expect(doc.response_types_supported).toEqual(['code', 'id_token', 'id_token token']);
    expect(doc.response_modes_supported).toEqual(['query', 'fragment', 'form_post', 'jwt', 'query.jwt', 'fragment.jwt', 'form_post.jwt']);
    expect(doc.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'implicit']));
  });
});
