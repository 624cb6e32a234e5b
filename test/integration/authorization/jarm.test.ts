// JWT Secured Authorization Response Mode (JARM) over HTTP: response_mode
// jwt, query.jwt, fragment.jwt and form_post.jwt answer with one `response`
// parameter, a JWT Keyflow signs (verified here against its JWKS: jose for
// RS256, noble for ML-DSA-65) holding iss, aud, a five-minute exp and the
// response's parameters; for the code flow, the implicit flow, every error sent
// to a trusted redirect URI, and a pushed request; the refused combinations;
// authorization_signed_response_alg at registration; discovery.
// (standards/rp-library.test.ts has oauth4webapi validate a JWT response.)
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import type { NewClientInput } from '../../../lib/model/clients.js';
import { newSecret } from '../../../lib/security/secrets.js';
import { formPostOf } from '../../support/form-post.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { useRegistration } from '../../support/registration.js';
import { AUTHORIZATION_CODE_FORMAT, pkceCodeRequest } from '../../support/token-flow.js';
import { newRp, type FixtureRp } from '../../../tools/fixtures/clients.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newUser } from '../../../tools/fixtures/users.js';

const PASSWORD = 'jarm password';
const REDIRECT = 'https://jarm-rp.example/callback';
const AUTHORIZE = '/api/oauth/authorize';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const TTL_SECONDS = 300;

const api = useTestApi();
let jwks: ReturnType<typeof createRemoteJWKSet>;
const { register } = useRegistration(api, 'jarm-owner');
beforeAll(() => {
  jwks = createRemoteJWKSet(new URL(`${api.issuer}/.well-known/jwks.json`));
});

const newClient = (extra: Partial<NewClientInput> = {}) =>
  newRp(api.deps, {
    name: 'JARM RP',
    redirectUris: [{ type: 'equals', value: REDIRECT }],
    allowedScopes: ['openid', 'profile'],
    // Not the response's algorithm: that is authorizationSignedResponseAlg's (RS256 when none is registered).
    idTokenSignedResponseAlg: 'ML-DSA-65',
    ...extra,
  });

/** Parameters of a code request with PKCE (the verifier returned); `extra` adds or overrides. */
const request = (rp: FixtureRp, extra: Record<string, string> = {}) => pkceCodeRequest(rp, REDIRECT, extra);

const authorizePath = (params: Record<string, string>) => `${AUTHORIZE}?${new URLSearchParams(params)}`;
const unsignedAnswer = (params: Record<string, string>) => fetch(`${api.issuer}${authorizePath(params)}`, { redirect: 'manual' });

async function signedIn() {
  const { email } = await newUser(api.deps, { prefix: 'jarm', password: PASSWORD });
  const agent = new HttpUser(api.issuer);
  await agent.signIn(await agent.get('/login'), email, PASSWORD);
  return agent;
}

/** A signed-in agent that allowed `rp` 'openid profile' before (through a query-mode flow). */
async function consentedAgent(rp: FixtureRp) {
  const agent = await signedIn();
  const consent = await agent.get(authorizePath(request(rp).params));
  const back = await agent.submit(await consent.res.text(), '/consent', { decision: 'allow' });
  expect(back.external?.searchParams.get('code')).toBeTruthy();
  return agent;
}

async function redeem(rp: FixtureRp, code: string, verifier: string) {
  const res = await fetch(`${api.issuer}/api/oauth/token`, {
    method: 'POST',
    headers: { ...FORM, ...rp.headers },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** The `response` of a redirect back to the client: the one parameter, in its query. */
function queryResponse(res: Response): string {
  expect(res.status).toBe(303);
  return responseOf(new URL(res.headers.get('location')!), 'query');
}

/** The `response` of a URL back at the redirect URI, the one parameter in its query or its fragment. */
function responseOf(back: URL, where: 'query' | 'fragment'): string {
  expect(back.origin + back.pathname).toBe(REDIRECT);
  const params = new URLSearchParams(where === 'query' ? back.search : back.hash.slice(1));
  expect(where === 'query' ? back.hash : back.search).toBe('');
  expect([...params.keys()]).toEqual(['response']);
  return params.get('response')!;
}

/** The response JWT verified against Keyflow's JWKS (RS256) for `rp`, with its five-minute exp; its claims. */
async function verified(jwt: string, clientId: string): Promise<JWTPayload> {
  expect(decodeProtectedHeader(jwt).alg).toBe('RS256');
  const { payload } = await jwtVerify(jwt, jwks, { issuer: api.issuer, audience: clientId, algorithms: ['RS256'] });
  const now = Math.floor(Date.now() / 1000);
  expect(payload.exp).toBeGreaterThanOrEqual(now + TTL_SECONDS - 5);
  expect(payload.exp).toBeLessThanOrEqual(now + TTL_SECONDS);
  return payload;
}

const claimsOf = (clientId: string, fields: Record<string, unknown>) => ({ ...fields, iss: api.issuer, aud: clientId, exp: expect.any(Number) });
const errorClaims = (clientId: string, error: string, state: string) => claimsOf(clientId, { error, error_description: expect.any(String), state });

describe('JWT response modes for a code', () => {
  it('answers response_mode=jwt by query with one parameter, response: a JWT signed RS256 (the default) with iss, aud, exp, code and state; the code redeems', async () => {
    const rp = await newClient();
    const agent = await consentedAgent(rp);
    const { params, verifier } = request(rp, { response_mode: 'jwt' });
    const res = await agent.request(authorizePath(params));
    const claims = await verified(queryResponse(res), rp.id);
    expect(claims).toEqual(claimsOf(rp.id, { code: expect.stringMatching(AUTHORIZATION_CODE_FORMAT), state: params.state }));
    expect((await redeem(rp, claims.code as string, verifier)).status).toBe(200);
  });

  it('signs with the algorithm the client registered: ML-DSA-65, verified with noble against the published key (query.jwt)', async () => {
    const rp = await newClient({ authorizationSignedResponseAlg: 'ML-DSA-65' });
    const agent = await consentedAgent(rp);
    const { params, verifier } = request(rp, { response_mode: 'query.jwt' });
    const jwt = queryResponse(await agent.request(authorizePath(params)));
    const [h, p, s] = jwt.split('.') as [string, string, string];
    const header = JSON.parse(Buffer.from(h, 'base64url').toString());
    expect(header.alg).toBe('ML-DSA-65');
    const { keys } = (await (await fetch(`${api.issuer}/.well-known/jwks.json`)).json()) as Json;
    const jwk = keys.find((k: Json) => k.kid === header.kid);
    expect(jwk).toMatchObject({ kty: 'AKP', alg: 'ML-DSA-65' });
    expect(ml_dsa65.verify(Buffer.from(s, 'base64url'), Buffer.from(`${h}.${p}`), Buffer.from(jwk.pub, 'base64url'))).toBe(true);
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    expect(claims).toEqual(claimsOf(rp.id, { code: expect.any(String), state: params.state }));
    expect((await redeem(rp, claims.code, verifier)).status).toBe(200);
  });

  it('answers form_post.jwt with a page whose form posts one hidden field, response, to the redirect URI', async () => {
    const rp = await newClient();
    const agent = await consentedAgent(rp);
    const { params, verifier } = request(rp, { response_mode: 'form_post.jwt' });
    const res = await agent.request(authorizePath(params));
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const form = await formPostOf(res);
    expect(form.action).toBe(REDIRECT);
    expect(Object.keys(form.fields)).toEqual(['response']);
    const claims = await verified(form.fields.response!, rp.id);
    expect(claims).toEqual(claimsOf(rp.id, { code: expect.any(String), state: params.state }));
    expect((await redeem(rp, claims.code as string, verifier)).status).toBe(200);
  });

  it('takes response_mode=jwt in a pushed request (PAR): the pushed mode applies', async () => {
    const rp = await newClient();
    const agent = await consentedAgent(rp);
    const { params, verifier } = request(rp, { response_mode: 'jwt', state: 'pushed' });
    const pushed = await fetch(`${api.issuer}/api/oauth/par`, { method: 'POST', headers: { ...FORM, ...rp.headers }, body: new URLSearchParams(params) });
    expect(pushed.status).toBe(201);
    const { request_uri: requestUri } = (await pushed.json()) as Json;
    const res = await agent.request(authorizePath({ client_id: rp.id, request_uri: requestUri, response_mode: 'query' }));
    const claims = await verified(queryResponse(res), rp.id);
    expect(claims).toEqual(claimsOf(rp.id, { code: expect.any(String), state: 'pushed' }));
    expect((await redeem(rp, claims.code as string, verifier)).status).toBe(200);

    const refused = await fetch(`${api.issuer}/api/oauth/par`, {
      method: 'POST',
      headers: { ...FORM, ...rp.headers },
      body: new URLSearchParams(request(rp, { response_mode: 'fragment.jwt' }).params),
    });
    expect([refused.status, (await refused.json()) as Json]).toEqual([
      400,
      { error: 'invalid_request', error_description: expect.stringContaining('fragment.jwt') },
    ]);
  });
});

describe('errors in a JWT response mode', () => {
  it('sends every error after the redirect URI is trusted as a JWT with error, error_description and state: invalid_scope, login_required, access_denied', async () => {
    const rp = await newClient();
    const badScope = request(rp, { response_mode: 'jwt', scope: 'openid launch', state: 'bad-scope' }).params;
    expect(await verified(queryResponse(await unsignedAnswer(badScope)), rp.id)).toEqual(errorClaims(rp.id, 'invalid_scope', 'bad-scope'));

    const signedOut = request(rp, { response_mode: 'form_post.jwt', prompt: 'none', state: 'nobody' }).params;
    const form = await formPostOf(await unsignedAnswer(signedOut));
    expect(Object.keys(form.fields)).toEqual(['response']);
    expect(await verified(form.fields.response!, rp.id)).toEqual(errorClaims(rp.id, 'login_required', 'nobody'));

    const agent = await signedIn();
    const consent = await agent.get(authorizePath(request(rp, { response_mode: 'jwt', state: 'deny-me' }).params));
    const denied = await agent.submit(await consent.res.text(), '/consent', { decision: 'deny' });
    expect(await verified(responseOf(denied.external!, 'query'), rp.id)).toEqual(errorClaims(rp.id, 'access_denied', 'deny-me'));
  });

  it('answers a request object that cannot be used in the JWT mode it names', async () => {
    const rp = await newClient();
    // Unsigned and expired: refused, at the redirect URI it names (the client registered it).
    const claims = { exp: Math.floor(Date.now() / 1000) - 300, response_mode: 'jwt', state: 'inside', redirect_uri: REDIRECT };
    const object = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
    const res = await unsignedAnswer({ client_id: rp.id, request: object });
    expect(await verified(queryResponse(res), rp.id)).toEqual(errorClaims(rp.id, 'invalid_request_object', 'inside'));
  });

  it('refuses fragment.jwt for a code (invalid_request) as a JWT by query, the jwt default; an unknown mode by plain query', async () => {
    const rp = await newClient();
    const fragment = await verified(queryResponse(await unsignedAnswer(request(rp, { response_mode: 'fragment.jwt', state: 'f' }).params)), rp.id);
    expect(fragment).toEqual(errorClaims(rp.id, 'invalid_request', 'f'));
    expect(fragment.error_description).toContain('fragment.jwt');

    const unknown = await unsignedAnswer(request(rp, { response_mode: 'jwt.query', state: 'u' }).params);
    expect(unknown.status).toBe(303);
    expect(Object.fromEntries(new URL(unknown.headers.get('location')!).searchParams)).toEqual({
      error: 'invalid_request',
      error_description: expect.stringContaining('response_mode'),
      state: 'u',
      iss: api.issuer,
    });
  });

  it('never answers an untrusted redirect URI, in a JWT mode either', async () => {
    const rp = await newClient();
    const res = await unsignedAnswer(request(rp, { response_mode: 'jwt', redirect_uri: 'https://evil.example/cb' }).params);
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).not.toContain('evil.example');
  });
});

describe('the implicit flow in a JWT response mode', () => {
  const implicitClient = async () => {
    const { status, body } = await register({
      client_name: 'Implicit JARM RP',
      redirect_uris: [REDIRECT],
      scope: 'openid profile',
      grant_types: ['implicit'],
      response_types: ['id_token token'],
      id_token_signed_response_alg: 'RS256',
      authorization_signed_response_alg: 'RS256',
    });
    expect([status, body.authorization_signed_response_alg]).toEqual([201, 'RS256']);
    return body.client_id as string;
  };
  const implicitRequest = (clientId: string, extra: Record<string, string>) => ({
    response_type: 'id_token token',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'openid profile',
    state: `st-${newSecret().slice(0, 8)}`,
    nonce: `n-${newSecret().slice(0, 12)}`,
    ...extra,
  });

  it('answers response_mode=jwt in the fragment with a JWT holding the ID token, the access token and state', async () => {
    const clientId = await implicitClient();
    const params = implicitRequest(clientId, { response_mode: 'jwt' });
    const { email } = await newUser(api.deps, { prefix: 'jarm-implicit', password: PASSWORD });
    const agent = new HttpUser(api.issuer);
    let step = await agent.get(authorizePath(params));
    step = await agent.signIn(step, email, PASSWORD);
    step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
    expect(step.res.headers.get('cache-control')).toBe('no-store');
    const claims = await verified(responseOf(step.external!, 'fragment'), clientId);
    expect(claims).toEqual(
      claimsOf(clientId, {
        id_token: expect.any(String),
        access_token: expect.any(String),
        token_type: 'Bearer',
        expires_in: expect.any(String),
        scope: 'openid profile',
        state: params.state,
      }),
    );
    const idToken = await jwtVerify(claims.id_token as string, jwks, { issuer: api.issuer, audience: clientId, algorithms: ['RS256'] });
    expect(idToken.payload.nonce).toBe(params.nonce);
  });

  it('refuses query.jwt (its tokens would be in a query string: Keyflow does not encrypt) as a JWT in the fragment', async () => {
    const clientId = await implicitClient();
    const res = await unsignedAnswer(implicitRequest(clientId, { response_mode: 'query.jwt', state: 'q' }));
    expect(res.status).toBe(303);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const claims = await verified(responseOf(new URL(res.headers.get('location')!), 'fragment'), clientId);
    expect(claims).toEqual(errorClaims(clientId, 'invalid_request', 'q'));
  });
});

describe('authorization_signed_response_alg (client metadata)', () => {
  it('is registered, shown in the client information document and read back; absent when not registered (RS256 then)', async () => {
    const { status, body } = await register({ client_name: 'JARM metadata', redirect_uris: [REDIRECT], authorization_signed_response_alg: 'ML-DSA-65' });
    expect([status, body.authorization_signed_response_alg]).toEqual([201, 'ML-DSA-65']);
    const read = await fetch(body.registration_client_uri, { headers: { authorization: `Bearer ${body.registration_access_token}` } });
    expect([read.status, ((await read.json()) as Json).authorization_signed_response_alg]).toEqual([200, 'ML-DSA-65']);
    const plain = await register({ client_name: 'No JARM metadata', redirect_uris: [REDIRECT] });
    expect(plain.status).toBe(201);
    expect(plain.body).not.toHaveProperty('authorization_signed_response_alg');
  });

  it.each([
    ['none (JARM responses are always signed)', 'none'],
    ['a shared-secret algorithm', 'HS256'],
    ['an algorithm Keyflow does not sign with', 'ES512'],
    ['a value that is not text', 256],
  ])('refuses %s with invalid_client_metadata', async (_name, alg) => {
    const { status, body } = await register({ client_name: 'Bad JARM', redirect_uris: [REDIRECT], authorization_signed_response_alg: alg });
    expect([status, body.error, body.error_description]).toEqual([
      400,
      'invalid_client_metadata',
      expect.stringContaining('authorization_signed_response_alg'),
    ]);
  });
});

describe('discovery', () => {
  it('lists the JWT response modes and the algorithms responses are signed with, and no encryption', async () => {
    const doc = (await (await fetch(`${api.issuer}/.well-known/openid-configuration`)).json()) as Json;
    expect(doc.response_modes_supported).toEqual(expect.arrayContaining(['jwt', 'query.jwt', 'fragment.jwt', 'form_post.jwt']));
    expect(doc.authorization_signing_alg_values_supported).toEqual(['ML-DSA-65', 'RS256', 'PS256', 'ES256']);
    expect(Object.keys(doc).filter((k) => k.startsWith('authorization_encryption_'))).toEqual([]);
    const oauthDoc = (await (await fetch(`${api.issuer}/.well-known/oauth-authorization-server`)).json()) as Json;
    expect(oauthDoc.authorization_signing_alg_values_supported).toEqual(['ML-DSA-65', 'RS256', 'PS256', 'ES256']);
  });
});
