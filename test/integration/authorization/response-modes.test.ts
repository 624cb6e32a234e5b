// response_mode over HTTP: query (the default) and form_post (OAuth 2.0 Form
// Post Response Mode), for the code and for every error sent back once the
// redirect URI is trusted; the form_post page's CSP, headers and escaping;
// fragment and unknown modes refused. (authorize-post-browser.test.ts
// runs form_post in Chromium.)
import { AUTHORIZATION_CODE_FORMAT, pkceCodeRequest } from '../../support/token-flow.js';
import { createHash } from 'node:crypto';
import type { RedirectUriEntry } from '../../../lib/model/redirect-uri.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { formPostOf } from '../../support/form-post.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newRp, type FixtureRp } from '../../../tools/fixtures/clients.js';

const PASSWORD = 'response modes password';
const REDIRECT = 'https://modes-rp.example/callback';
const AUTHORIZE = '/api/oauth/authorize';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

const api = useTestApi();

const newClient = (redirectUris: string[] = [REDIRECT], extra: { requirePushedAuthorizationRequests?: boolean } = {}) =>
  newRp(api.deps, {
    name: 'Modes RP',
    redirectUris: redirectUris.map((value): RedirectUriEntry => ({ type: 'equals', value })),
    allowedScopes: ['openid', 'profile'],
    idTokenSignedResponseAlg: 'RS256',
    ...extra,
  });

/** Parameters of a code request with PKCE (the verifier returned); `extra` adds or overrides. */
const request = (rp: FixtureRp, extra: Record<string, string> = {}) => pkceCodeRequest(rp, REDIRECT, extra);

const authorizePath = (params: Record<string, string>) => `${AUTHORIZE}?${new URLSearchParams(params)}`;

async function signedIn() {
  const { email } = await newUser(api.deps, { prefix: 'modes', password: PASSWORD });
  const agent = new HttpUser(api.issuer);
  await agent.signIn(await agent.get('/login'), email, PASSWORD);
  return agent;
}

/** A signed-in agent that allowed `rp` 'openid profile' before (through a query-mode flow). */
async function consentedAgent(rp: FixtureRp, redirectUri = REDIRECT) {
  const agent = await signedIn();
  const consent = await agent.get(authorizePath(request(rp, { redirect_uri: redirectUri }).params));
  const back = await agent.submit(await consent.res.text(), '/consent', { decision: 'allow' });
  expect(back.external?.searchParams.get('code')).toBeTruthy();
  return agent;
}

async function redeem(rp: FixtureRp, code: string, verifier: string, redirectUri = REDIRECT) {
  const res = await fetch(`${api.issuer}/api/oauth/token`, {
    method: 'POST',
    headers: { ...FORM, ...rp.headers },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** An answer by query: a 303 to the redirect URI; returns its parameters. */
function queryAnswer(res: Response, redirectUri = REDIRECT): Record<string, string> {
  expect(res.status).toBe(303);
  const back = new URL(res.headers.get('location')!);
  expect(back.origin + back.pathname).toBe(redirectUri);
  return Object.fromEntries(back.searchParams);
}

const errorFields = (error: string, state: string) => ({ error, error_description: expect.any(String), state, iss: api.issuer });

describe('response_mode=form_post', () => {
  it('answers with a page whose form posts code, state and iss to the redirect URI and submits itself, under a CSP that allows only that', async () => {
    const rp = await newClient();
    const agent = await consentedAgent(rp);
    const { params, verifier } = request(rp, { response_mode: 'form_post' });
    const res = await agent.request(authorizePath(params));
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const page = await res.clone().text();

    // The one script is allowed by its hash; nothing else loads or runs.
    const scripts = [...page.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    expect(page.match(/<script/g)).toHaveLength(1);
    const hash = createHash('sha256').update(scripts[0]!).digest('base64');
    expect(res.headers.get('content-security-policy')!.split('; ').sort()).toEqual(
      [`default-src 'none'`, `script-src 'sha256-${hash}'`, `base-uri 'none'`, `frame-ancestors 'none'`].sort(),
    );
    // Without script, a button submits it.
    expect(page).toContain('<button type="submit">Continue</button>');

    const form = await formPostOf(res);
    expect(form).toEqual({ action: REDIRECT, fields: { code: expect.stringMatching(AUTHORIZATION_CODE_FORMAT), state: params.state, iss: api.issuer } });
    expect(Object.keys(form.fields)).toEqual(['code', 'state', 'iss']);
    expect((await redeem(rp, form.fields.code!, verifier)).status).toBe(200);
  });

  it('escapes what it renders: a state with markup and a redirect URI with a query arrive intact, as data', async () => {
    const withQuery = 'https://modes-rp.example/callback?tenant=a&next=%2Fhome';
    const rp = await newClient([withQuery]);
    const agent = await consentedAgent(rp, withQuery);
    const state = `"><script>alert(1)</script><img src=x onerror=alert(2)>'&amp;`;
    const { params, verifier } = request(rp, { redirect_uri: withQuery, state, response_mode: 'form_post' });
    const res = await agent.request(authorizePath(params));
    const page = await res.clone().text();
    expect(page.match(/<script/g)).toHaveLength(1);
    expect(page).not.toContain('<img');
    expect(page).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    const form = await formPostOf(res);
    expect(form.action).toBe(withQuery);
    expect(form.fields.state).toBe(state);
    expect((await redeem(rp, form.fields.code!, verifier, withQuery)).status).toBe(200);
  });

  it('sends back every error after the redirect URI is trusted the same way: validation, login_required, consent_required, access_denied, a client that must use PAR', async () => {
    const rp = await newClient();
    const formPost = (extra: Record<string, string>) => request(rp, { response_mode: 'form_post', ...extra }).params;

    const invalid = await formPostOf(await fetch(`${api.issuer}${authorizePath(formPost({ scope: 'openid launch', state: 'bad-scope' }))}`));
    expect(invalid).toEqual({ action: REDIRECT, fields: errorFields('invalid_scope', 'bad-scope') });

    const signedOut = await formPostOf(await fetch(`${api.issuer}${authorizePath(formPost({ prompt: 'none', state: 'nobody' }))}`));
    expect(signedOut.fields).toEqual(errorFields('login_required', 'nobody'));

    const agent = await signedIn();
    const notConsented = await formPostOf(await agent.request(authorizePath(formPost({ prompt: 'none', state: 'ask-first' }))));
    expect(notConsented.fields).toEqual(errorFields('consent_required', 'ask-first'));

    const consent = await agent.get(authorizePath(formPost({ state: 'deny-me' })));
    const denied = await agent.submit(await consent.res.text(), '/consent', { decision: 'deny' });
    expect(denied.external).toBeUndefined();
    expect(await formPostOf(denied.res)).toEqual({ action: REDIRECT, fields: errorFields('access_denied', 'deny-me') });

    const parOnly = await newClient([REDIRECT], { requirePushedAuthorizationRequests: true });
    const refused = await fetch(`${api.issuer}${authorizePath(request(parOnly, { response_mode: 'form_post', state: 'push-it' }).params)}`);
    expect((await formPostOf(refused)).fields).toEqual(errorFields('invalid_request', 'push-it'));

    // The client and redirect URI themselves are still never answered at the redirect URI.
    const untrusted = await fetch(`${api.issuer}${authorizePath(formPost({ redirect_uri: 'https://evil.example/cb' }))}`, { redirect: 'manual' });
    expect(untrusted.status).toBe(400);
    expect(await untrusted.text()).not.toContain('<form method="post" action="https://evil.example');
  });

  it('answers a refused request object the way the object asks, at its redirect URI when the client registered it (OIDC Core §6.1)', async () => {
    const rp = await newClient();
    // Unsigned request objects, as the conformance suite sends them; these have expired.
    const object = (claims: Record<string, unknown>) =>
      `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify({ exp: Math.floor(Date.now() / 1000) - 300, ...claims })).toString('base64url')}.`;
    const { params } = request(rp);
    const { state: _state, ...withoutState } = params;
    const inner = object({ response_mode: 'form_post', state: 'inside', redirect_uri: REDIRECT });
    const form = await formPostOf(await fetch(`${api.issuer}${authorizePath({ client_id: rp.id, request: inner })}`, { redirect: 'manual' }));
    expect(form).toEqual({
      action: REDIRECT,
      fields: { error: 'invalid_request_object', error_description: expect.any(String), state: 'inside', iss: api.issuer },
    });
    // The object's parameters win over the plain ones, for the refusal too.
    const plain = await fetch(`${api.issuer}${authorizePath({ ...params, response_mode: 'query', request: inner })}`, { redirect: 'manual' });
    expect((await formPostOf(plain)).fields.state).toBe('inside');
    // A redirect URI inside that the client did not register is never answered, even with a registered one outside.
    const evil = object({ response_mode: 'form_post', redirect_uri: 'https://evil.example/cb' });
    const untrusted = await fetch(`${api.issuer}${authorizePath({ ...params, request: evil })}`, { redirect: 'manual' });
    expect(untrusted.status).toBe(400);
    expect(await untrusted.text()).not.toContain('evil.example');
    // Not a JWT at all: by the plain parameters, without a state it cannot find.
    const garbled = await fetch(`${api.issuer}${authorizePath({ ...withoutState, request: 'not-a-jwt' })}`, { redirect: 'manual' });
    expect(queryAnswer(garbled)).toEqual({ error: 'invalid_request_object', error_description: expect.any(String), iss: api.issuer });
  });

  it('is kept with a pushed request; fragment is refused at the push', async () => {
    const rp = await newClient();
    const agent = await consentedAgent(rp);
    const push = (params: Record<string, string>) =>
      fetch(`${api.issuer}/api/oauth/par`, { method: 'POST', headers: { ...FORM, ...rp.headers }, body: new URLSearchParams(params) });
    const { params, verifier } = request(rp, { response_mode: 'form_post', state: 'pushed' });
    const pushed = await push(params);
    expect(pushed.status).toBe(201);
    const { request_uri: requestUri } = (await pushed.json()) as Json;
    // The pushed mode applies, whatever the front channel says.
    const form = await formPostOf(await agent.request(authorizePath({ client_id: rp.id, request_uri: requestUri, response_mode: 'query' })));
    expect(form.fields).toEqual({ code: expect.any(String), state: 'pushed', iss: api.issuer });
    expect((await redeem(rp, form.fields.code!, verifier)).status).toBe(200);

    const fragment = await push(request(rp, { response_mode: 'fragment' }).params);
    expect([fragment.status, (await fragment.json()) as Json]).toEqual([
      400,
      { error: 'invalid_request', error_description: expect.stringContaining('fragment') },
    ]);
  });
});

describe('response_mode=query and the rest', () => {
  it('answers response_mode=query (the default, named) with a 303', async () => {
    const rp = await newClient();
    const agent = await consentedAgent(rp);
    const { params } = request(rp, { response_mode: 'query', state: 'q' });
    expect(queryAnswer(await agent.request(authorizePath(params)))).toEqual({ code: expect.any(String), state: 'q', iss: api.issuer });
  });

  it.each([
    ['fragment (a code is never put where redirects carry it on)', 'fragment'],
    ['an unknown mode', 'web_message'],
    ['an empty one', ''],
  ])('refuses %s with invalid_request, by query', async (_name, mode) => {
    const rp = await newClient();
    const res = await fetch(`${api.issuer}${authorizePath(request(rp, { response_mode: mode, state: 'm' }).params)}`, { redirect: 'manual' });
    expect(queryAnswer(res)).toEqual(errorFields('invalid_request', 'm'));
  });

  it('refuses a repeated response_mode, by query', async () => {
    const rp = await newClient();
    const query = new URLSearchParams(request(rp, { response_mode: 'form_post', state: 'twice' }).params);
    query.append('response_mode', 'form_post');
    const res = await fetch(`${api.issuer}${AUTHORIZE}?${query}`, { redirect: 'manual' });
    expect(queryAnswer(res)).toEqual(errorFields('invalid_request', 'twice'));
  });
});
