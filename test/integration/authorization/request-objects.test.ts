// Request objects (OIDC Core §6, RFC 9101) over HTTP: by value (`request`) and
// by reference (`request_uri`, served here by a local server that the api's
// outbound allow-list admits), signed (RS256, PS256, ES256, EdDSA) and
// unsigned, at the authorization endpoint and pushed at PAR; the object's
// parameters alone apply; every refusal is invalid_request_object,
// invalid_request_uri or invalid_request, at the redirect URI when the client
// registered it, else on the error page — never a 500.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { SignJWT, UnsecuredJWT } from 'jose';
import type { RunningApi } from '../../../api/server.js';
import type { NewClientInput } from '../../../lib/model/clients.js';
import { s256Challenge } from '../../../lib/model/pkce.js';
import { startTestApi, type Json } from '../../support/harness.js';
import { authorizeAs } from '../../support/token-flow.js';
import { newClientKey, type ClientKey, type ClientKeyAlg } from '../../support/client-keys.js';
import { epochSeconds, jwtClaims } from '../../support/http.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newRp, type FixtureRp } from '../../../tools/fixtures/clients.js';

let api: RunningApi;
let issuer: string;
const PASSWORD = 'request objects password';
const REDIRECT = 'https://jar-rp.example/callback';
const VERIFIER = 'request-object-test-verifier-0123456789-abcdefghijk';

// The client's request_uri server: each path answers what `served` holds for it.
let server: http.Server;
let serverBase: string;
const served = new Map<string, { status: number; body: string }>();
const accepts: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    accepts.push(String(req.headers.accept));
    const answer = served.get(req.url ?? '') ?? { status: 404, body: 'not found' };
    res.writeHead(answer.status, { 'content-type': 'application/oauth-authz-req+jwt' }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  api = await startTestApi({ OUTBOUND_ALLOWLIST: 'request_uri=127.0.0.1:*,jwks_uri=127.0.0.1:*' });
  issuer = api.deps.config.issuer;
});
afterAll(async () => {
  await api.stop();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A confidential client with these public keys and request_uris. */
function jarRp(keys: ClientKey[], extra: Partial<NewClientInput> = {}): Promise<FixtureRp> {
  return newRp(api.deps, {
    name: 'JAR RP',
    redirectUris: [{ type: 'equals', value: REDIRECT }],
    allowedScopes: ['openid', 'profile', 'email'],
    idTokenSignedResponseAlg: 'RS256',
    jwks: keys.length ? { keys: keys.map((k) => k.jwk) } : null,
    ...extra,
  });
}

/** The claims of a request object of `rp`: a complete request, with `changes` applied (undefined removes a claim). */
function claimsOf(rp: FixtureRp, changes: Record<string, unknown> = {}): Record<string, unknown> {
  const claims: Record<string, unknown> = {
    iss: rp.id,
    aud: issuer,
    iat: epochSeconds(),
    exp: epochSeconds() + 300,
    jti: randomUUID(),
    client_id: rp.id,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: 'openid profile',
    state: 'inside-state',
    nonce: 'inside-nonce',
    code_challenge: s256Challenge(VERIFIER),
    code_challenge_method: 'S256',
    ...changes,
  };
  for (const [k, v] of Object.entries(claims)) if (v === undefined) delete claims[k];
  return claims;
}

const sign = (key: ClientKey, claims: Record<string, unknown>, header: Record<string, unknown> = {}) =>
  new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'oauth-authz-req+jwt', ...header }).sign(key.privateKey);
const unsigned = (claims: Record<string, unknown>) => new UnsecuredJWT(claims).encode();

/** A new URL of the request_uri server, answering 404 until something is served there. */
const newRequestUri = () => `${serverBase}/ro/${randomUUID()}`;
/** Serves `body` at `requestUri` (a new one by default): its URL. */
function serve(body: string, requestUri = newRequestUri()): string {
  served.set(new URL(requestUri).pathname, { status: 200, body });
  return requestUri;
}

const authorizeUrl = (params: Record<string, string>) => `${issuer}/api/oauth/authorize?${new URLSearchParams(params)}`;

/** The browser part: sign-in and consent when asked; the redirect back to the client. */
async function authorize(params: Record<string, string>): Promise<URL> {
  const { email } = await newUser(api.deps, { prefix: 'jar', password: PASSWORD });
  const agent = new HttpUser(issuer);
  return authorizeAs(agent, authorizeUrl(params), email, PASSWORD);
}

async function redeem(rp: FixtureRp, code: string) {
  const res = await fetch(`${issuer}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...rp.headers },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: VERIFIER }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** A code flow with the object's parameters: back at REDIRECT with its state, the code redeemed for its scope and nonce. */
async function expectCodeFlow(rp: FixtureRp, params: Record<string, string>) {
  const back = await authorize(params);
  expect(back.origin + back.pathname).toBe(REDIRECT);
  expect(back.searchParams.get('state')).toBe('inside-state');
  expect(back.searchParams.get('iss')).toBe(issuer);
  const tokens = await redeem(rp, back.searchParams.get('code')!);
  expect(tokens.status).toBe(200);
  expect(tokens.body.scope).toBe('openid profile');
  expect(jwtClaims(tokens.body.id_token)).toMatchObject({ aud: rp.id, nonce: 'inside-nonce' });
}

/** The authorization endpoint's answer when it does not start a flow: a redirect's parameters, or the error page. */
async function answer(params: Record<string, string>): Promise<{ to: string; params: Record<string, string> } | { page: number; text: string }> {
  const res = await fetch(authorizeUrl(params), { redirect: 'manual' });
  if (res.status === 303) {
    const back = new URL(res.headers.get('location')!);
    return { to: back.origin + back.pathname, params: Object.fromEntries(back.searchParams) };
  }
  expect(res.headers.get('content-type')).toMatch(/text\/html/);
  return { page: res.status, text: await res.text() };
}

/** A refusal sent back to REDIRECT with this error and state. */
async function expectRefusal(params: Record<string, string>, error: string, state: string | undefined, description?: RegExp) {
  const got = await answer(params);
  expect(got).toEqual({
    to: REDIRECT,
    params: { error, error_description: expect.any(String), ...(state !== undefined ? { state } : {}), iss: issuer },
  });
  if (description && 'params' in got) expect(got.params.error_description).toMatch(description);
}

describe.each<ClientKeyAlg>(['RS256', 'PS256', 'ES256', 'EdDSA'])('a request object signed with %s', (alg) => {
  it('by value: the code flow runs with the parameters inside it', async () => {
    const key = await newClientKey(alg);
    const rp = await jarRp([key]);
    await expectCodeFlow(rp, { client_id: rp.id, response_type: 'code', request: await sign(key, claimsOf(rp)) });
  });

  it('by reference: Keyflow fetches the registered request_uri and runs the code flow', async () => {
    const key = await newClientKey(alg);
    const requestUri = newRequestUri();
    const rp = await jarRp([key], { requestUris: [requestUri] });
    serve(await sign(key, claimsOf(rp)), requestUri);
    const before = accepts.length;
    await expectCodeFlow(rp, { client_id: rp.id, response_type: 'code', request_uri: requestUri });
    expect(accepts.slice(before)).toEqual(['application/oauth-authz-req+jwt, application/jwt']);
  });
});

describe('a request object of a client with a jwks_uri, and one sent by POST', () => {
  it('is verified with the keys at the client’s jwks_uri', async () => {
    const key = await newClientKey('ES256');
    const jwksUri = serve(JSON.stringify({ keys: [key.jwk] }));
    const rp = await jarRp([], { jwksUri });
    await expectCodeFlow(rp, { client_id: rp.id, response_type: 'code', request: await sign(key, claimsOf(rp)) });
  });

  it('works as a POSTed form: sent on as the same request by GET, then the flow', async () => {
    const key = await newClientKey('EdDSA');
    const rp = await jarRp([key]);
    const { email } = await newUser(api.deps, { prefix: 'jar', password: PASSWORD });
    const agent = new HttpUser(issuer);
    const posted = await agent.request('/api/oauth/authorize', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: rp.id, request: await sign(key, claimsOf(rp)) }),
    });
    expect(posted.status).toBe(303);
    let step = await agent.follow(posted);
    step = await agent.signIn(step, email, PASSWORD);
    step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
    expect(step.external!.searchParams.get('state')).toBe('inside-state');
    expect((await redeem(rp, step.external!.searchParams.get('code')!)).status).toBe(200);
  });
});

describe('merging: the request object against the parameters outside it', () => {
  it('uses the object’s parameters only; outside ones (a wrong redirect_uri, another scope, state, prompt, PKCE) are not used', async () => {
    const key = await newClientKey('RS256');
    const rp = await jarRp([key]);
    await expectCodeFlow(rp, {
      client_id: rp.id,
      response_type: 'code',
      request: await sign(key, claimsOf(rp)),
      // The conformance suite's wrong redirect_uri beside a right one inside.
      redirect_uri: `${REDIRECT}_invalid`,
      scope: 'openid email',
      state: 'outside-state',
      nonce: 'outside-nonce',
      // Were it used, the signed-out user would be answered login_required.
      prompt: 'none',
      code_challenge: s256Challenge('another-verifier-0123456789-0123456789-abcdefgh'),
      code_challenge_method: 'S256',
    });
  });

  it('does not take a parameter from outside that the object leaves out', async () => {
    const key = await newClientKey('ES256');
    const rp = await jarRp([key]);
    const request = await sign(key, claimsOf(rp, { scope: undefined }));
    await expectRefusal({ client_id: rp.id, response_type: 'code', scope: 'openid profile', request }, 'invalid_scope', 'inside-state');
  });

  it('takes response_type from outside when the object has none, from inside when only it has one, and refuses them differing', async () => {
    const key = await newClientKey('ES256');
    const rp = await jarRp([key]);
    await expectCodeFlow(rp, { client_id: rp.id, response_type: 'code', request: await sign(key, claimsOf(rp, { response_type: undefined })) });
    await expectCodeFlow(rp, { client_id: rp.id, request: await sign(key, claimsOf(rp)) });
    const differing = await sign(key, claimsOf(rp, { response_type: 'token' }));
    await expectRefusal({ client_id: rp.id, response_type: 'code', request: differing }, 'invalid_request_object', 'inside-state', /response_type/);
  });

  it('needs client_id outside the object, equal to the one inside', async () => {
    const key = await newClientKey('ES256');
    const rp = await jarRp([key]);
    const other = await jarRp([key]);
    const missing = await answer({ response_type: 'code', request: await sign(key, claimsOf(rp)) });
    expect(missing).toEqual({ page: 400, text: expect.stringContaining('Unknown application') });
    // Signed by the same key for another client: iss and client_id name `other`.
    const mismatch = await sign(key, claimsOf(rp, { client_id: other.id }));
    await expectRefusal({ client_id: rp.id, response_type: 'code', request: mismatch }, 'invalid_request_object', 'inside-state', /client_id/);
  });

  it('refuses request and request_uri together, and a request object inside one', async () => {
    const key = await newClientKey('ES256');
    const rp = await jarRp([key]);
    const request = await sign(key, claimsOf(rp));
    await expectRefusal({ client_id: rp.id, response_type: 'code', request, request_uri: serve(request) }, 'invalid_request', 'inside-state');
    const nested = await sign(key, claimsOf(rp, { request: 'eyJhbGciOiJub25lIn0.e30.' }));
    await expectRefusal({ client_id: rp.id, response_type: 'code', request: nested }, 'invalid_request_object', 'inside-state', /request/);
  });
});

describe('unsigned request objects (alg none)', () => {
  it('are accepted, by value and by reference, from a client that registered no request_object_signing_alg', async () => {
    const rp = await jarRp([]);
    await expectCodeFlow(rp, { client_id: rp.id, response_type: 'code', request: unsigned(claimsOf(rp, { iss: undefined, aud: undefined })) });
    const requestUri = `${newRequestUri()}#content-hash`;
    const byReference = await jarRp([], { requestUris: [requestUri] });
    serve(unsigned(claimsOf(byReference)), requestUri);
    // Registered with a fragment, sent with another: the fragment is not part of the match (nor sent).
    await expectCodeFlow(byReference, { client_id: byReference.id, response_type: 'code', request_uri: requestUri.replace('#content-hash', '#changed') });
  });

  it('are refused from a client that registered RS256, which gets only RS256', async () => {
    const rs = await newClientKey('RS256');
    const es = await newClientKey('ES256');
    const rp = await jarRp([rs, es], { requestObjectSigningAlg: 'RS256' });
    const params = { client_id: rp.id, response_type: 'code', redirect_uri: REDIRECT };
    await expectRefusal({ ...params, request: unsigned(claimsOf(rp)) }, 'invalid_request_object', 'inside-state', /RS256/);
    await expectRefusal({ ...params, request: await sign(es, claimsOf(rp)) }, 'invalid_request_object', 'inside-state', /RS256/);
    await expectCodeFlow(rp, { ...params, request: await sign(rs, claimsOf(rp)) });
  });

  it('have iss and aud checked when they carry them', async () => {
    const rp = await jarRp([]);
    await expectRefusal({ client_id: rp.id, request: unsigned(claimsOf(rp, { iss: 'someone-else' })) }, 'invalid_request_object', 'inside-state', /iss/);
    await expectRefusal(
      { client_id: rp.id, request: unsigned(claimsOf(rp, { aud: 'https://elsewhere.example' })) },
      'invalid_request_object',
      'inside-state',
      /aud/,
    );
  });
});

describe('refused signed request objects: invalid_request_object at the redirect URI inside them', () => {
  let key: ClientKey;
  let rp: FixtureRp;
  beforeAll(async () => {
    key = await newClientKey('ES256');
    rp = await jarRp([key]);
  });
  const refused = async (request: string, description: RegExp) =>
    expectRefusal({ client_id: rp.id, response_type: 'code', request }, 'invalid_request_object', 'inside-state', description);

  it('a bad signature, an unknown kid, an algorithm not offered', async () => {
    const other = await newClientKey('ES256');
    await refused(await sign({ ...other, kid: key.kid }, claimsOf(rp)), /signature/);
    await refused(await sign(key, claimsOf(rp), { kid: 'unknown-kid' }), /kid/);
    const hs = await new SignJWT(claimsOf(rp)).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('a shared secret of thirty-two bytes!'));
    await refused(hs, /signed with/);
  });

  it('iss other than the client, or missing', async () => {
    await refused(await sign(key, claimsOf(rp, { iss: 'someone-else' })), /iss/);
    await refused(await sign(key, claimsOf(rp, { iss: undefined })), /iss/);
  });

  it('aud other than the issuer, or missing; the issuer alone or in an array is accepted', async () => {
    for (const aud of ['https://elsewhere.example', `${issuer}/api/oauth/authorize`, `${issuer}/`, ['https://elsewhere.example']]) {
      await refused(await sign(key, claimsOf(rp, { aud })), /aud/);
    }
    await refused(await sign(key, claimsOf(rp, { aud: undefined })), /aud/);
    await expectCodeFlow(rp, { client_id: rp.id, request: await sign(key, claimsOf(rp, { aud: [issuer, 'https://other-as.example'] })) });
  });

  it('expired, not yet valid, issued in the future or over an hour ago, or living more than an hour', async () => {
    await refused(await sign(key, claimsOf(rp, { iat: epochSeconds() - 600, exp: epochSeconds() - 60 })), /expired/);
    await refused(await sign(key, claimsOf(rp, { nbf: epochSeconds() + 600 })), /nbf/);
    await refused(await sign(key, claimsOf(rp, { iat: epochSeconds() + 600 })), /iat/);
    await refused(await sign(key, claimsOf(rp, { iat: epochSeconds() - 7200, exp: undefined })), /iat/);
    await refused(await sign(key, claimsOf(rp, { exp: epochSeconds() + 7200 })), /exp/);
    // Without exp, iat or jti (as the OpenID Foundation's signed request_uri test sends it): accepted.
    await expectCodeFlow(rp, { client_id: rp.id, request: await sign(key, claimsOf(rp, { exp: undefined, iat: undefined, jti: undefined })) });
  });

  it('a jti used before', async () => {
    const request = await sign(key, claimsOf(rp));
    await expectCodeFlow(rp, { client_id: rp.id, request });
    await refused(request, /already used/);
  });

  it('unparseable, encrypted, or of another type', async () => {
    // No object to read a redirect URI from, and none outside: the error page.
    const garbled = await answer({ client_id: rp.id, request: 'not-a-jwt' });
    expect(garbled).toEqual({ page: 400, text: expect.stringContaining('not a JWT') });
    // With the redirect URI and state outside, the refusal goes there.
    await expectRefusal({ client_id: rp.id, redirect_uri: REDIRECT, state: 'outside', request: 'not-a-jwt' }, 'invalid_request_object', 'outside', /not a JWT/);
    // Encrypted (five parts): nothing inside can be read, so the plain parameters say where the refusal goes.
    const encrypted = `${await sign(key, claimsOf(rp))}.x.y`;
    await expectRefusal({ client_id: rp.id, redirect_uri: REDIRECT, state: 'outside', request: encrypted }, 'invalid_request_object', 'outside', /encrypted/);
    await refused(await sign(key, claimsOf(rp), { typ: 'dpop+jwt' }), /typ/);
  });

  it('goes back in the response mode the object names', async () => {
    const res = await fetch(authorizeUrl({ client_id: rp.id, request: await sign(key, claimsOf(rp, { response_mode: 'form_post', iss: 'x' })) }));
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain(`<form method="post" action="${REDIRECT}">`);
    expect(page).toContain('<input type="hidden" name="error" value="invalid_request_object">');
    expect(page).toContain('<input type="hidden" name="state" value="inside-state">');
  });
});

describe('request_uri refusals: invalid_request_uri', () => {
  it('unreachable, not https, not registered, not allowed, too large, or not 200', async () => {
    const key = await newClientKey('ES256');
    const tooLarge = serve('a'.repeat(40 * 1024));
    const missing = newRequestUri();
    const unreachable = 'http://127.0.0.1:1/ro';
    // https, but to an internal address the allow-list does not admit (localhost is not 127.0.0.1 there).
    const notAllowed = 'https://localhost:1/ro';
    const rp = await jarRp([key], { requestUris: [tooLarge, missing, unreachable, notAllowed] });
    const outside = { client_id: rp.id, response_type: 'code', redirect_uri: REDIRECT, state: 'outside' };
    const cases: [string, RegExp][] = [
      [unreachable, /could not be reached/],
      ['http://rp.example/ro', /https/],
      [`${serverBase}/not-registered`, /not one this application registered/],
      [notAllowed, /not allowed/],
      [tooLarge, /larger than/],
      [missing, /answered 404/],
      ['urn:example:not-a-url-keyflow-fetches', /https/],
      ['x'.repeat(600), /512/],
    ];
    for (const [requestUri, description] of cases) {
      await expectRefusal({ ...outside, request_uri: requestUri }, 'invalid_request_uri', 'outside', description);
    }
    // Without a redirect URI outside (nor an object to read one from): the error page, not a redirect.
    expect(await answer({ client_id: rp.id, request_uri: unreachable })).toEqual({ page: 400, text: expect.stringContaining('could not be reached') });
  });
});

describe('request objects pushed at PAR (RFC 9126 §3)', () => {
  const push = (rp: FixtureRp, body: Record<string, string>) =>
    fetch(`${issuer}/api/oauth/par`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...rp.headers },
      body: new URLSearchParams(body),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as Json }));

  it('verifies the pushed object, stores its parameters, and the request_uri runs the flow', async () => {
    const key = await newClientKey('PS256');
    const rp = await jarRp([key], { requestObjectSigningAlg: 'PS256' });
    // The object's parameters alone apply: a scope pushed beside it is not used.
    const pushed = await push(rp, { request: await sign(key, claimsOf(rp)), scope: 'openid email' });
    expect(pushed.status).toBe(201);
    await expectCodeFlow(rp, { client_id: rp.id, request_uri: pushed.body.request_uri });
  });

  it('refuses what the authorization endpoint refuses, as JSON', async () => {
    const key = await newClientKey('RS256');
    const rp = await jarRp([key], { requestObjectSigningAlg: 'RS256' });
    const other = await jarRp([key]);
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ request: unsigned(claimsOf(rp)) }, 'invalid_request_object', /RS256/],
      [{ request: await sign({ ...(await newClientKey('RS256')), kid: key.kid }, claimsOf(rp)) }, 'invalid_request_object', /signature/],
      [{ request: 'eyJ.x.y' }, 'invalid_request_object', /JWT/],
      [{ request: await sign(key, claimsOf(rp)), request_uri: 'https://rp.example/ro' }, 'invalid_request', /request_uri/],
      // Signed for another client with the same key: not the authenticated client's.
      [{ request: await sign(key, claimsOf(other)) }, 'invalid_request_object', /iss/],
    ];
    for (const [body, error, description] of cases) {
      const r = await push(rp, body);
      expect([r.status, r.body.error]).toEqual([400, error]);
      expect(r.body.error_description).toMatch(description);
    }
  });

  it('never fetches a request_uri pushed by reference, not even for a client that must sign every request (RFC 9126 §2.1)', async () => {
    const key = await newClientKey('PS256');
    const requestUri = newRequestUri();
    const rp = await jarRp([key], { requestObjectSigningAlg: 'PS256', requireSignedRequestObject: true, requestUris: [requestUri] });
    serve(await sign(key, claimsOf(rp)), requestUri);
    const before = accepts.length;
    const r = await push(rp, { request_uri: requestUri });
    expect([r.status, r.body.error]).toEqual([400, 'invalid_request']);
    expect(r.body.error_description).toMatch(/request_uri must not be pushed/);
    expect(accepts.length).toBe(before);
  });
});

describe('registration and discovery', () => {
  it('advertises request objects in discovery', async () => {
    const doc = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Json;
    expect(doc).toMatchObject({
      request_parameter_supported: true,
      request_uri_parameter_supported: true,
      require_request_uri_registration: true,
      request_object_signing_alg_values_supported: ['RS256', 'PS256', 'ES256', 'EdDSA', 'none'],
    });
  });
});
