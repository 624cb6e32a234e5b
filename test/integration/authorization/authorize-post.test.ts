// Authorization requests by POST (OIDC Core §3.1.2.1), over HTTP: the same
// checks and flow as GET with the form's parameters; a POST without the
// session cookie (what a cross-site POST from an RP's page looks like:
// SameSite=Lax) goes on as the same request by GET, so a signed-in browser is
// never taken for a signed-out one.
import { AUTHORIZATION_CODE_FORMAT } from '../../support/token-flow.js';
import { s256Challenge } from '../../../lib/model/pkce.js';
import { newSecret } from '../../../lib/security/secrets.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newRp, type FixtureRp } from '../../../tools/fixtures/clients.js';

const PASSWORD = 'authorization by post password';
const REDIRECT = 'https://post-rp.example/callback';
const AUTHORIZE = '/api/oauth/authorize';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

const api = useTestApi();

const newClient = (extra: { requirePushedAuthorizationRequests?: boolean } = {}) =>
  newRp(api.deps, {
    name: 'POST RP',
    redirectUris: [{ type: 'equals', value: REDIRECT }],
    allowedScopes: ['openid', 'profile', 'email'],
    idTokenSignedResponseAlg: 'RS256',
    ...extra,
  });

const newPerson = () => newUser(api.deps, { prefix: 'post', password: PASSWORD, name: 'Post User' });

/** Parameters of a request with PKCE (the verifier returned), a state and nonce; `extra` adds or overrides. */
function request(rp: FixtureRp, extra: Record<string, string> = {}) {
  const verifier = newSecret();
  const params = {
    response_type: 'code',
    client_id: rp.id,
    redirect_uri: REDIRECT,
    scope: 'openid profile',
    state: `st-${newSecret().slice(0, 8)}`,
    nonce: `n-${newSecret().slice(0, 8)}`,
    code_challenge: s256Challenge(verifier),
    code_challenge_method: 'S256',
    ...extra,
  };
  return { params, verifier };
}

/** A POST of `body` as a form to the authorization endpoint: by `agent` (its cookies), or cookie-less as a cross-site POST arrives. */
function post(body: Record<string, string> | [string, string][], agent?: HttpUser, path = AUTHORIZE): Promise<Response> {
  const init = { method: 'POST', headers: FORM, body: new URLSearchParams(body) };
  return agent ? agent.request(path, init) : fetch(`${api.issuer}${path}`, { ...init, redirect: 'manual' });
}

/** Follows the flow in `agent` from `res` to the redirect back to the client: sign-in and consent (allow) when asked. */
async function toClient(agent: HttpUser, res: Response, email: string): Promise<URL> {
  let step = await agent.follow(res);
  if (step.url.includes('/login')) step = await agent.signIn(step, email, PASSWORD);
  if (step.url.includes('/consent')) step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
  if (!step.external) throw new Error(`flow stopped at ${step.url} (${step.res.status})`);
  return step.external;
}

async function redeem(rp: FixtureRp, code: string, verifier: string): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${api.issuer}/api/oauth/token`, {
    method: 'POST',
    headers: { ...FORM, ...rp.headers },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }),
  });
  return { status: res.status, body: await res.json() };
}

/** The same request as a GET, which the answer to a cookie-less POST must name. */
function expectSentOnAsGet(res: Response, body: [string, string][]) {
  expect(res.status).toBe(303);
  const next = new URL(res.headers.get('location')!, api.issuer);
  expect(next.origin + next.pathname).toBe(`${api.issuer}${AUTHORIZE}`);
  expect([...next.searchParams]).toEqual(body);
}

/** A signed-in agent that has allowed `rp` the request's scopes before. */
async function consentedAgent(rp: FixtureRp) {
  const { email, user } = await newPerson();
  const agent = new HttpUser(api.issuer);
  const { params } = request(rp);
  await toClient(agent, await agent.request(`${AUTHORIZE}?${new URLSearchParams(params)}`), email);
  return { agent, email, user };
}

describe('POST /api/oauth/authorize', () => {
  it('sends a cookie-less POST on as the same request by GET (nothing stored, no cookie set), and the flow completes from there', async () => {
    const rp = await newClient();
    const { email, user } = await newPerson();
    const { params, verifier } = request(rp);
    // Repeated parameters stay repeated (here one the endpoint ignores), in order.
    const body: [string, string][] = [...Object.entries(params), ['ui_locales', 'de'], ['ui_locales', 'en']];
    const res = await post(body);
    expectSentOnAsGet(res, body);
    expect(res.headers.getSetCookie()).toEqual([]);
    // This client's requests only: other suites share the database and store theirs meanwhile.
    expect(await api.deps.store.authorizationRequests.countDocuments({ clientId: rp.id })).toBe(0);

    const back = await toClient(new HttpUser(api.issuer), res, email);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(Object.fromEntries(back.searchParams)).toEqual({ code: expect.stringMatching(AUTHORIZATION_CODE_FORMAT), state: params.state, iss: api.issuer });
    const tokens = await redeem(rp, back.searchParams.get('code')!, verifier);
    expect(tokens.status).toBe(200);
    expect(JSON.parse(Buffer.from(tokens.body.id_token.split('.')[1], 'base64url').toString())).toMatchObject({ sub: user._id, nonce: params.nonce });
  });

  it('answers the POST of a signed-in browser (its session cookie came along) at once: consent, then the code', async () => {
    const rp = await newClient();
    const { email } = await newPerson();
    const agent = new HttpUser(api.issuer);
    await agent.signIn(await agent.get('/login'), email, PASSWORD);
    const { params, verifier } = request(rp);
    const res = await post(params, agent);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/^\/consent\?request=/);
    const back = await toClient(agent, res, email);
    expect([back.searchParams.get('state'), back.searchParams.get('iss')]).toEqual([params.state, api.issuer]);
    expect((await redeem(rp, back.searchParams.get('code')!, verifier)).status).toBe(200);
    // Consented: the next POST gets its code straight away.
    const again = request(rp);
    const direct = await post(again.params, agent);
    expect(direct.status).toBe(303);
    const code = new URL(direct.headers.get('location')!);
    expect([code.origin + code.pathname, code.searchParams.get('state')]).toEqual([REDIRECT, again.params.state]);
    expect((await redeem(rp, code.searchParams.get('code')!, again.verifier)).status).toBe(200);
  });

  it('answers prompt=none with the code for a signed-in browser even when its POST came without cookies, login_required only when signed out', async () => {
    const rp = await newClient();
    const { agent } = await consentedAgent(rp);
    const silent = request(rp, { prompt: 'none' });
    const body = Object.entries(silent.params);

    // Cross-site: no cookie on the POST. Not "signed out": on to the GET, which carries the cookie.
    const crossSite = await post(body);
    expectSentOnAsGet(crossSite, body);
    const back = (await agent.follow(crossSite)).external!;
    expect(back.searchParams.get('error')).toBeNull();
    expect(back.searchParams.get('state')).toBe(silent.params.state);
    expect((await redeem(rp, back.searchParams.get('code')!, silent.verifier)).status).toBe(200);

    // Same-site (the cookie came): answered at once.
    const sameSite = request(rp, { prompt: 'none' });
    const direct = await post(sameSite.params, agent);
    expect(new URL(direct.headers.get('location')!).searchParams.get('code')).toBeTruthy();

    // A browser that is signed out: login_required, after the same hop.
    const signedOut = request(rp, { prompt: 'none', state: 'nobody-here' });
    const stranger = new HttpUser(api.issuer);
    const answer = (await stranger.follow(await post(signedOut.params, stranger))).external!;
    expect(Object.fromEntries(answer.searchParams)).toEqual({
      error: 'login_required',
      error_description: expect.any(String),
      state: 'nobody-here',
      iss: api.issuer,
    });
  });

  it.each<[string, (rp: FixtureRp) => [string, string][]]>([
    ['an unknown client', (rp) => Object.entries(request(rp, { client_id: 'nope' }).params)],
    ['an unregistered redirect URI', (rp) => Object.entries(request(rp, { redirect_uri: 'https://evil.example/cb' }).params)],
    ['a missing redirect URI', (rp) => Object.entries(request(rp).params).filter(([k]) => k !== 'redirect_uri')],
    ['response_type=token', (rp) => Object.entries(request(rp, { response_type: 'token' }).params)],
    ['an unknown scope', (rp) => Object.entries(request(rp, { scope: 'openid launch' }).params)],
    ['PKCE plain', (rp) => Object.entries(request(rp, { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }).params)],
    ['a repeated scope', (rp) => [...Object.entries(request(rp).params), ['scope', 'email']]],
    ['response_mode=fragment', (rp) => Object.entries(request(rp, { response_mode: 'fragment' }).params)],
    ['an unknown response_mode', (rp) => Object.entries(request(rp, { response_mode: 'web_message' }).params)],
    ['a request_uri without PAR', (rp) => Object.entries(request(rp, { request_uri: 'urn:x' }).params)],
  ])('answers %s exactly as the GET does', async (_name, paramsOf) => {
    const rp = await newClient();
    const { agent } = await consentedAgent(rp);
    const params = paramsOf(rp);
    const byGet = await agent.request(`${AUTHORIZE}?${new URLSearchParams(params)}`);
    const byPost = await post(params, agent);
    const answer = async (res: Response) => ({
      status: res.status,
      location: res.headers.get('location'),
      type: res.headers.get('content-type'),
      text: await res.text(),
    });
    const [get, posted] = [await answer(byGet), await answer(byPost)];
    expect(posted).toEqual(get);
    expect([303, 400]).toContain(get.status);
  });

  it('takes the form only: query parameters of a POST are not mixed in', async () => {
    const rp = await newClient();
    const { agent } = await consentedAgent(rp);
    const { params } = request(rp, { state: 'from-the-form' });
    const { scope: _scope, ...withoutScope } = params;
    const res = await post(withoutScope, agent, `${AUTHORIZE}?${new URLSearchParams({ scope: 'openid profile', state: 'from-the-query' })}`);
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('location')!);
    expect(Object.fromEntries(back.searchParams)).toEqual({
      error: 'invalid_scope',
      error_description: 'scope is required',
      state: 'from-the-form',
      iss: api.issuer,
    });
  });

  const multipart = () => {
    const form = new FormData();
    form.set('response_type', 'code');
    return form;
  };
  it.each<[string, () => RequestInit, number]>([
    ['no body', () => ({}), 400],
    ['a JSON body', () => ({ headers: { 'content-type': 'application/json' }, body: '{"response_type":"code"}' }), 400],
    ['a text/plain body', () => ({ headers: { 'content-type': 'text/plain' }, body: 'response_type=code' }), 400],
    ['a multipart form', () => ({ body: multipart() }), 400],
    ['a form with an unsupported charset', () => ({ headers: { 'content-type': `${FORM['content-type']}; charset=latin1` }, body: 'a=b' }), 415],
    ['a form over the size limit', () => ({ headers: FORM, body: `state=${'x'.repeat(9000)}` }), 413],
  ])('refuses %s on the error page, never redirecting', async (_name, init, status) => {
    const res = await fetch(`${api.issuer}${AUTHORIZE}`, { method: 'POST', ...init(), redirect: 'manual' });
    expect(res.status).toBe(status);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    expect(page).toContain(status === 400 ? 'must be a form (application/x-www-form-urlencoded)' : 'Keyflow could not use this request');
  });

  it('takes a pushed request by POST (client_id + request_uri), and does not use it up before the GET it may send on to', async () => {
    const rp = await newClient({ requirePushedAuthorizationRequests: true });
    const { email } = await newPerson();
    const agent = new HttpUser(api.issuer);
    await agent.signIn(await agent.get('/login'), email, PASSWORD);
    const push = async (state: string) => {
      const { params, verifier } = request(rp, { state });
      const { client_id: _id, ...pushed } = params;
      const res = await fetch(`${api.issuer}/api/oauth/par`, { method: 'POST', headers: { ...FORM, ...rp.headers }, body: new URLSearchParams(pushed) });
      expect(res.status).toBe(201);
      return { requestUri: ((await res.json()) as Json).request_uri as string, verifier };
    };

    // With the session cookie: answered here.
    const first = await push('pushed-1');
    const back = await toClient(agent, await post({ client_id: rp.id, request_uri: first.requestUri, state: 'not-this' }, agent), email);
    expect(back.searchParams.get('state')).toBe('pushed-1');
    expect((await redeem(rp, back.searchParams.get('code')!, first.verifier)).status).toBe(200);

    // Without it: on to the GET, the pushed request still unused until then.
    const second = await push('pushed-2');
    const body: [string, string][] = [
      ['client_id', rp.id],
      ['request_uri', second.requestUri],
    ];
    const crossSite = await post(body);
    expectSentOnAsGet(crossSite, body);
    const code = (await agent.follow(crossSite)).external!;
    expect([code.searchParams.get('state'), code.searchParams.get('error')]).toEqual(['pushed-2', null]);
    expect((await redeem(rp, code.searchParams.get('code')!, second.verifier)).status).toBe(200);

    // This client's plain requests are refused by POST as by GET.
    const plain = await post(request(rp, { state: 'plain' }).params, agent);
    expect(new URL(plain.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });
});
