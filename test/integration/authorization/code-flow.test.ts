// The authorization code flow over HTTP: authorize → sign-in → consent → code
// → token → UserInfo, and every error these endpoints document.
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { s256Challenge } from '../../../lib/model/pkce.js';
import { newSecret } from '../../../lib/security/secrets.js';
import { createClient } from '../../../lib/store/clients.js';
import type { NewClientInput } from '../../../lib/model/clients.js';
import { familyWorkflowId } from '../../../lib/model/refresh-family.js';
import { SearchAttributes } from '../../../lib/temporal/search-attributes.js';
import { useTestApi, eventually, type Json } from '../../support/harness.js';
import { skipTime } from '../../support/clock.js';
import { AUTHORIZATION_CODE_FORMAT, authorizeAs } from '../../support/token-flow.js';
import { basicAuthEncoded } from '../../support/http.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newRp } from '../../../tools/fixtures/clients.js';
import { withPkce, withVerifier } from '../../../tools/fixtures/pkce.js';
import { ValidationError } from '../../../lib/model/errors.js';

const PASSWORD = 'correct horse battery staple';
const REDIRECT = 'https://rp.example/callback';

const api = useTestApi();

const USER = { prefix: 'flow', password: PASSWORD, name: 'Flow User' };

const RP: NewClientInput = {
  name: 'Test RP',
  redirectUris: [{ type: 'equals', value: REDIRECT }],
  allowedScopes: ['openid', 'profile', 'email', 'offline_access', 'profile:write'],
  idTokenSignedResponseAlg: 'RS256',
};

/** The authorization URL; with the tests' PKCE challenge unless `pkce` is false or the params name one. */
function authorizeUrl(params: Record<string, string>, pkce = true) {
  const url = new URL('/api/oauth/authorize', api.issuer);
  for (const [k, v] of Object.entries(pkce ? withPkce(params) : params)) url.searchParams.set(k, v);
  return url.href;
}

/** A token request; an authorization_code grant without code_verifier gets the tests' verifier unless `asIs`. */
async function token(body: Record<string, string>, headers: Record<string, string> = {}, asIs = false) {
  const res = await fetch(`${api.issuer}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(asIs ? body : withVerifier(body)),
  });
  return { res, body: (await res.json()) as Json };
}

/** Runs the browser part of the flow with an HTTP user; returns the redirect back to the client. */
async function authorize(agent: HttpUser, params: Record<string, string>, creds?: { email: string }, consent = true): Promise<URL> {
  return authorizeAs(agent, authorizeUrl(params), creds?.email, PASSWORD, consent ? 'allow' : 'deny');
}

describe('authorization code flow', () => {
  it('signs a user in, asks consent, and issues a code, tokens and UserInfo', async () => {
    const { email, user } = await newUser(api.deps, USER);
    const { client, secret: clientSecret } = await newRp(api.deps, RP);
    const agent = new HttpUser(api.issuer);
    const verifier = newSecret() + 'abc';
    const state = 'st-' + newSecret().slice(0, 8);
    const nonce = 'n-' + newSecret().slice(0, 8);
    const back = await authorize(
      agent,
      {
        response_type: 'code',
        client_id: client._id,
        redirect_uri: REDIRECT,
        scope: 'openid profile email',
        state,
        nonce,
        code_challenge: s256Challenge(verifier),
        code_challenge_method: 'S256',
      },
      { email },
    );
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe(state);
    expect(back.searchParams.get('iss')).toBe(api.issuer);
    const code = back.searchParams.get('code')!;
    expect(code).toMatch(AUTHORIZATION_CODE_FORMAT);

    const { res, body } = await token(
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
      { authorization: basicAuthEncoded(client._id, clientSecret!) },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      id_token: expect.any(String),
      scope: 'openid profile email',
    });

    const jwks = createRemoteJWKSet(new URL(`${api.issuer}/.well-known/jwks.json`));
    const id = await jwtVerify(body.id_token, jwks, { issuer: api.issuer, audience: client._id, algorithms: ['RS256'] });
    expect(id.payload).toMatchObject({
      sub: user._id,
      nonce,
      role: 'user',
      acr: 'pwd',
      amr: ['pwd'],
      name: 'Flow User',
      preferred_username: user.username,
      email,
      email_verified: true,
      sid: expect.any(String),
      auth_time: expect.any(Number),
    });
    const at = await jwtVerify(body.access_token, jwks, { issuer: api.issuer, typ: 'at+jwt', audience: api.issuer });
    expect(at.payload).toMatchObject({
      sub: user._id,
      client_id: client._id,
      scope: 'openid profile email',
      jti: expect.any(String),
      grant_id: expect.any(String),
      acr: 'pwd',
      amr: ['pwd'],
    });

    for (const method of ['GET', 'POST']) {
      const info = await fetch(`${api.issuer}/api/oauth/userinfo`, { method, headers: { authorization: `Bearer ${body.access_token}` } });
      expect(info.status).toBe(200);
      expect(await info.json()).toEqual({
        sub: user._id,
        name: 'Flow User',
        preferred_username: user.username,
        updated_at: expect.any(Number),
        email,
        email_verified: true,
      });
    }
  });

  it('remembers consent, and asks again with prompt=consent', async () => {
    const { email } = await newUser(api.deps, USER);
    const { client } = await newRp(api.deps, RP);
    const agent = new HttpUser(api.issuer);
    const params = { response_type: 'code', client_id: client._id, redirect_uri: REDIRECT, scope: 'openid profile', state: 's1' };
    await authorize(agent, params, { email });
    // Same scopes again: straight back with a code, no consent page.
    const again = await agent.get(authorizeUrl(params));
    expect(again.external?.searchParams.get('code')).toBeTruthy();
    // A wider request asks again.
    const wider = await agent.get(authorizeUrl({ ...params, scope: 'openid profile email' }));
    expect(wider.url).toContain('/consent');
    const forced = await agent.get(authorizeUrl({ ...params, prompt: 'consent' }));
    expect(forced.url).toContain('/consent');
  });

  it('sends access_denied with state and iss when the user denies', async () => {
    const { email } = await newUser(api.deps, USER);
    const { client } = await newRp(api.deps, RP);
    const back = await authorize(
      new HttpUser(api.issuer),
      { response_type: 'code', client_id: client._id, redirect_uri: REDIRECT, scope: 'openid', state: 'deny-me' },
      { email },
      false,
    );
    expect(Object.fromEntries(back.searchParams)).toEqual({ error: 'access_denied', error_description: expect.any(String), state: 'deny-me', iss: api.issuer });
  });

  it('answers prompt=none with login_required, then consent_required', async () => {
    const { email } = await newUser(api.deps, USER);
    const { client } = await newRp(api.deps, RP);
    const agent = new HttpUser(api.issuer);
    const params = { response_type: 'code', client_id: client._id, redirect_uri: REDIRECT, scope: 'openid', state: 'pn', prompt: 'none' };
    const anonymous = await agent.get(authorizeUrl(params));
    expect(Object.fromEntries(anonymous.external!.searchParams)).toMatchObject({ error: 'login_required', state: 'pn', iss: api.issuer });
    // Sign in through another client's flow, then prompt=none for this one: consent is missing.
    const other = await newRp(api.deps, RP);
    await authorize(agent, { response_type: 'code', client_id: other.client._id, redirect_uri: REDIRECT, scope: 'openid' }, { email });
    const signedIn = await agent.get(authorizeUrl(params));
    expect(Object.fromEntries(signedIn.external!.searchParams)).toMatchObject({ error: 'consent_required', state: 'pn', iss: api.issuer });
  });

  it('re-authenticates for prompt=login and an exceeded max_age', async () => {
    const { email } = await newUser(api.deps, USER);
    const { client } = await newRp(api.deps, RP);
    const agent = new HttpUser(api.issuer);
    const params = { response_type: 'code', client_id: client._id, redirect_uri: REDIRECT, scope: 'openid' };
    await authorize(agent, params, { email });
    const login = await agent.get(authorizeUrl({ ...params, prompt: 'login' }));
    expect(login.url).toContain('/login');
    const back = await authorize(agent, { ...params, prompt: 'login' }, { email });
    expect(back.searchParams.get('code')).toBeTruthy();
    skipTime(1100);
    expect((await agent.get(authorizeUrl({ ...params, max_age: '1' }))).url).toContain('/login');
    expect((await agent.get(authorizeUrl({ ...params, max_age: '3600' }))).external?.searchParams.get('code')).toBeTruthy();
    // max_age=0 is satisfied by the sign-in made for the request itself.
    expect((await authorize(agent, { ...params, max_age: '0' }, { email })).searchParams.get('code')).toBeTruthy();
  });

  it('never learns a redirect URI: a client must register one, and one stored without any accepts none', async () => {
    await expect(newRp(api.deps, { ...RP, redirectUris: [] })).rejects.toThrow(ValidationError);
    // A client stored before this rule, with an empty list, is refused on the error page, and nothing is learned.
    const { email } = await newUser(api.deps, USER);
    const { client } = await newRp(api.deps, RP);
    await api.deps.store.clients.updateOne({ _id: client._id }, { $set: { redirectUris: [] } });
    const agent = new HttpUser(api.issuer);
    await agent.signIn(await agent.get('/login'), email, PASSWORD);
    const first = await agent.get(authorizeUrl({ response_type: 'code', client_id: client._id, redirect_uri: 'https://learned.example/cb', scope: 'openid' }));
    expect(first.res.status).toBe(400);
    expect(first.external).toBeUndefined();
    expect(await first.res.text()).toContain('no registered redirect URI');
    expect((await api.deps.store.clients.findOne({ _id: client._id }))!.redirectUris).toEqual([]);
  });
});

describe('authorization endpoint errors', () => {
  let clientId: string;
  let publicId: string;
  beforeAll(async () => {
    clientId = (await newRp(api.deps, { ...RP, allowedScopes: ['openid', 'profile', 'site:user:read', 'team:read', 'team:abc:read', 'admin:users:read'] })).id;
    publicId = (await newRp(api.deps, { ...RP, public: true })).id;
  });

  it.each([
    ['an unknown client', () => ({ client_id: 'nope', redirect_uri: REDIRECT }), 'Unknown application'],
    ['a missing client_id', () => ({ redirect_uri: REDIRECT }), 'Unknown application'],
    ['an unregistered redirect URI', () => ({ client_id: clientId, redirect_uri: 'https://evil.example/cb' }), 'Invalid redirect URI'],
    ['a redirect URI with a fragment', () => ({ client_id: clientId, redirect_uri: `${REDIRECT}#x` }), 'Invalid redirect URI'],
    ['a missing redirect URI', () => ({ client_id: clientId }), 'Invalid redirect URI'],
  ])('shows the error page, never redirecting, for %s', async (_name, params, title) => {
    const res = await fetch(authorizeUrl({ response_type: 'code', scope: 'openid', state: 'x', ...params() }), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(await res.text()).toContain(title);
  });

  it.each([
    ['response_type=token', { response_type: 'token' }, 'unsupported_response_type'],
    ['no response_type', { response_type: '' }, 'invalid_request'],
    ['an unknown scope', { scope: 'openid launch' }, 'invalid_scope'],
    ['a scope the client may not ask for', { scope: 'openid email' }, 'invalid_scope'],
    ['a bound team scope (the user picks the team at consent)', { scope: 'openid team:abc:read' }, 'invalid_scope'],
    ['PKCE plain', { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }, 'invalid_request'],
    ['a malformed code_challenge', { code_challenge: 'short', code_challenge_method: 'S256' }, 'invalid_request'],
    ['an unknown prompt', { prompt: 'select_account' }, 'invalid_request'],
    ['prompt=none with login', { prompt: 'none login' }, 'invalid_request'],
    ['a negative max_age', { max_age: '-1' }, 'invalid_request'],
    ['a request_uri that is neither PAR’s nor an https URL', { request_uri: 'urn:x' }, 'invalid_request_uri'],
  ])('redirects with error, state and iss for %s', async (_name, extra, error) => {
    const res = await fetch(authorizeUrl({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, scope: 'openid', state: 'keep-me', ...extra }), {
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(Object.fromEntries(back.searchParams)).toEqual({ error, error_description: expect.any(String), state: 'keep-me', iss: api.issuer });
  });

  it('lets only admins consent to admin scopes', async () => {
    const { email } = await newUser(api.deps, USER);
    const back = await authorize(
      new HttpUser(api.issuer),
      { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, scope: 'openid admin:users:read', state: 'adm' },
      { email },
    );
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: 'invalid_scope', state: 'adm', iss: api.issuer });
    const { email: adminEmail } = await newUser(api.deps, { prefix: 'admin', password: PASSWORD, admin: true });
    const ok = await authorize(
      new HttpUser(api.issuer),
      { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, scope: 'openid admin:users:read', state: 'adm' },
      { email: adminEmail },
    );
    expect(ok.searchParams.get('code')).toBeTruthy();
  });

  it('requires PKCE from public clients', async () => {
    const res = await fetch(authorizeUrl({ response_type: 'code', client_id: publicId, redirect_uri: REDIRECT, scope: 'openid', state: 's' }, false), {
      redirect: 'manual',
    });
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    // A public client cannot opt out.
    await expect(newRp(api.deps, { ...RP, public: true, requirePkce: false })).rejects.toThrow(/always use PKCE/);
  });

  it('requires PKCE from confidential clients too, unless the client opted out', async () => {
    const res = await fetch(authorizeUrl({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, scope: 'openid', state: 's' }, false), {
      redirect: 'manual',
    });
    const back = new URL(res.headers.get('location')!);
    expect(Object.fromEntries(back.searchParams)).toEqual({
      error: 'invalid_request',
      error_description: expect.stringMatching(/PKCE/),
      state: 's',
      iss: api.issuer,
    });
    // The explicit opt-out: a code without PKCE, redeemed with the secret alone.
    const { email } = await newUser(api.deps, USER);
    const optedOut = await newRp(api.deps, { ...RP, requirePkce: false });
    const agent = new HttpUser(api.issuer);
    let step = await agent.get(authorizeUrl({ response_type: 'code', client_id: optedOut.client._id, redirect_uri: REDIRECT, scope: 'openid' }, false));
    step = await agent.signIn(step, email, PASSWORD);
    step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
    const code = step.external!.searchParams.get('code')!;
    const tokenRes = await fetch(`${api.issuer}/api/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuthEncoded(optedOut.client._id, optedOut.secret!) },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }),
    });
    expect(tokenRes.status).toBe(200);
  });
});

describe('token endpoint errors', () => {
  let email: string;
  beforeAll(async () => {
    ({ email } = await newUser(api.deps, USER));
  });

  async function codeFor(clientId: string, extra: Record<string, string> = {}) {
    const back = await authorize(
      new HttpUser(api.issuer),
      { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, scope: 'openid', ...extra },
      { email },
    );
    return back.searchParams.get('code')!;
  }

  /** PKCE for the code replay tests: the verifier and the authorization parameters carrying its challenge. */
  const pkce = () => {
    const verifier = newSecret() + 'replay';
    return { verifier, params: { code_challenge: s256Challenge(verifier), code_challenge_method: 'S256' } };
  };

  it('refuses a second use of a code and revokes what the first use issued', async () => {
    const { client, secret: clientSecret } = await newRp(api.deps, RP);
    const { verifier, params } = pkce();
    const code = await codeFor(client._id, params);
    const auth = { authorization: basicAuthEncoded(client._id, clientSecret!) };
    const first = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }, auth);
    expect(first.res.status).toBe(200);
    const userinfo = () => fetch(`${api.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${first.body.access_token}` } });
    expect((await userinfo()).status).toBe(200);
    const second = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }, auth);
    expect(second.res.status).toBe(400);
    expect(second.body).toEqual({ error: 'invalid_grant', error_description: 'code expired or invalid' });
    const refused = await userinfo();
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it('ends the refresh family of a replayed code: its refresh token is refused and the family is revoked', async () => {
    const { client, secret: clientSecret } = await newRp(api.deps, RP);
    const { verifier, params } = pkce();
    const code = await codeFor(client._id, { ...params, scope: 'openid offline_access' });
    const auth = { authorization: basicAuthEncoded(client._id, clientSecret!) };
    const first = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }, auth);
    expect(first.res.status).toBe(200);
    expect(first.body.refresh_token).toEqual(expect.any(String));
    const replay = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }, auth);
    expect([replay.res.status, replay.body.error]).toEqual([400, 'invalid_grant']);

    const refresh = await token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token }, auth);
    expect([refresh.res.status, refresh.body.error]).toEqual([400, 'invalid_grant']);
    // The RefreshFamily workflow itself has ended as revoked (not only the MongoDB grant).
    const grantId = JSON.parse(Buffer.from(first.body.access_token.split('.')[1], 'base64url').toString()).grant_id as string;
    const family = api.deps.temporal.client.workflow.getHandle(familyWorkflowId(grantId));
    await eventually(async () => {
      const d = await family.describe();
      expect([d.status.name, d.typedSearchAttributes.get(SearchAttributes.state)]).toEqual(['COMPLETED', 'revoked']);
    }, 15_000);
  });

  it('lets at most one of several concurrent exchanges of a code succeed, and revokes what it issued', async () => {
    const { client, secret: clientSecret } = await newRp(api.deps, RP);
    const { verifier, params } = pkce();
    const code = await codeFor(client._id, params);
    const auth = { authorization: basicAuthEncoded(client._id, clientSecret!) };
    const results = await Promise.all(
      [1, 2, 3].map(() => token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }, auth)),
    );
    // One exchange wins the code; the others are reuse. Reuse revokes the grant, so the
    // winner either got tokens that no longer work, or (when a reuse was recorded
    // before it finished) was refused as well.
    const statuses = results.map((r) => r.res.status);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(1);
    for (const r of results.filter((x) => x.res.status !== 200)) expect(r.body.error).toBe('invalid_grant');
    const winner = results.find((r) => r.res.status === 200);
    if (winner) {
      const info = await fetch(`${api.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${winner.body.access_token}` } });
      expect(info.status).toBe(401);
    }
  });

  it('issues codes that reveal nothing of the authorization and fail when altered in any part', async () => {
    const { client, secret: clientSecret } = await newRp(api.deps, RP);
    const { verifier, params } = pkce();
    const nonce = `nonce-${newSecret()}`;
    const code = await codeFor(client._id, { ...params, nonce });
    // Sealed: none of what the code stands for is readable from it.
    const opened = code
      .split('.')
      .map((part) => Buffer.from(part, 'base64url').toString('latin1'))
      .join(' ');
    for (const secret of [client._id, nonce, REDIRECT, 'openid']) expect([secret, opened.includes(secret)]).toEqual([secret, false]);
    const auth = { authorization: basicAuthEncoded(client._id, clientSecret!) };
    const exchange = (c: string) => token({ grant_type: 'authorization_code', code: c, redirect_uri: REDIRECT, code_verifier: verifier }, auth);
    const [, iv, ct, tag] = code.split('.') as [string, string, string, string];
    const flip = (part: string) => (part[0] === 'A' ? 'B' : 'A') + part.slice(1);
    for (const altered of [`kfc1.${flip(iv)}.${ct}.${tag}`, `kfc1.${iv}.${flip(ct)}.${tag}`, `kfc1.${iv}.${ct}.${flip(tag)}`, `kfc1.${iv}.${ct}`]) {
      const r = await exchange(altered);
      expect([r.res.status, r.body.error]).toEqual([400, 'invalid_grant']);
    }
    // The altered copies used nothing up: the code itself still works, once.
    expect((await exchange(code)).res.status).toBe(200);
    expect((await exchange(code)).body.error).toBe('invalid_grant');
  });

  it('redeems a code under its one spelling only: padding, stray characters and unused bits make no second code', async () => {
    const { client, secret: clientSecret } = await newRp(api.deps, RP);
    const { verifier, params } = pkce();
    const code = await codeFor(client._id, { ...params, scope: 'openid offline_access' });
    const auth = { authorization: basicAuthEncoded(client._id, clientSecret!) };
    const exchange = (c: string) => token({ grant_type: 'authorization_code', code: c, redirect_uri: REDIRECT, code_verifier: verifier }, auth);
    // The tag is 16 bytes: its last character carries 4 bits and 2 unused ones, which a lenient decoder ignores.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(code.at(-1)!);
    const unusedBitFlipped = code.slice(0, -1) + alphabet[last ^ 1];
    // `=` travels as %3D in the form; Node's base64url decoder stops at it or skips the others.
    const respellings = [`${code}=`, `${code}==`, `${code}!`, `${code} `, `${code.slice(0, 20)}*${code.slice(20)}`, unusedBitFlipped];
    for (const r of respellings) expect([r, (await exchange(r)).body.error]).toEqual([r, 'invalid_grant']);
    const first = await exchange(code);
    expect([first.res.status, first.body.error]).toEqual([200, undefined]);
    for (const r of respellings) expect([r, (await exchange(r)).res.status]).toEqual([r, 400]);
    // The first redemption's tokens still work: no spelling was a new code, and none counted as its reuse.
    const userinfo = () => fetch(`${api.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${first.body.access_token}` } });
    expect((await userinfo()).status).toBe(200);
    // The code itself, again, is reuse: the grant is revoked.
    expect((await exchange(code)).body.error).toBe('invalid_grant');
    expect((await userinfo()).status).toBe(401);
  });

  it('lets no request that would fail use a leaked code up: its rightful client still redeems it, once', async () => {
    const { client, secret: clientSecret } = await newRp(api.deps, RP);
    const other = await newRp(api.deps, RP);
    const publicOther = await newRp(api.deps, { ...RP, public: true });
    const { verifier, params } = pkce();
    const code = await codeFor(client._id, params);
    const auth = { authorization: basicAuthEncoded(client._id, clientSecret!) };
    const grant = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
    const attempts = [
      token(grant, { authorization: basicAuthEncoded(other.client._id, other.secret!) }),
      token({ ...grant, client_id: publicOther.client._id }),
      token({ ...grant, code_verifier: newSecret() + 'wrong' }, auth),
      token({ ...grant, redirect_uri: 'https://rp.example/elsewhere' }, auth),
      token({ ...grant, resource: 'https://api.not-granted.example/' }, auth),
    ];
    for (const a of await Promise.all(attempts)) expect([a.res.status, a.body.error]).toEqual([400, expect.stringMatching(/^invalid_(grant|target)$/)]);
    const rightful = await token(grant, auth);
    expect([rightful.res.status, rightful.body.error]).toEqual([200, undefined]);
    const info = await fetch(`${api.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${rightful.body.access_token}` } });
    expect(info.status).toBe(200);
    // A second valid request is reuse.
    expect((await token(grant, auth)).body.error).toBe('invalid_grant');
  });

  it('answers 401 with a Basic challenge for wrong Basic credentials, 400 for wrong body credentials', async () => {
    const { client } = await newRp(api.deps, RP);
    const viaBasic = await token(
      { grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT },
      { authorization: basicAuthEncoded(client._id, 'wrong') },
    );
    expect(viaBasic.res.status).toBe(401);
    expect(viaBasic.res.headers.get('www-authenticate')).toMatch(/^Basic realm="keyflow"/);
    expect(viaBasic.body.error).toBe('invalid_client');
    const viaBody = await token({ grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT, client_id: client._id, client_secret: 'wrong' });
    expect(viaBody.res.status).toBe(400);
    expect(viaBody.body.error).toBe('invalid_client');
    const noAuth = await token({ grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT, client_id: client._id });
    expect(noAuth.body.error).toBe('invalid_client');
  });

  it.each([
    ['no grant_type', {}, 'invalid_request'],
    ['an unknown grant_type', { grant_type: 'password' }, 'unsupported_grant_type'],
    ['an unknown code', { grant_type: 'authorization_code', code: 'not-a-code', redirect_uri: REDIRECT }, 'invalid_grant'],
    ['a missing code', { grant_type: 'authorization_code', redirect_uri: REDIRECT }, 'invalid_request'],
  ])('answers %s with %s', async (_name, body, error) => {
    const { client, secret: clientSecret } = await newRp(api.deps, RP);
    const r = await token(body, { authorization: basicAuthEncoded(client._id, clientSecret!) });
    expect(r.res.status).toBe(400);
    expect(r.body).toEqual({ error, error_description: expect.any(String) });
  });

  it('binds the code to its client, redirect URI and PKCE verifier', async () => {
    const { client, secret: clientSecret } = await newRp(api.deps, RP);
    const other = await newRp(api.deps, RP);
    const verifier = newSecret() + 'xyz';
    const auth = { authorization: basicAuthEncoded(client._id, clientSecret!) };
    const pkce = { code_challenge: s256Challenge(verifier), code_challenge_method: 'S256' };

    const c1 = await codeFor(client._id, pkce);
    expect(
      (
        await token(
          { grant_type: 'authorization_code', code: c1, redirect_uri: REDIRECT, code_verifier: verifier },
          { authorization: basicAuthEncoded(other.client._id, other.secret!) },
        )
      ).body.error,
    ).toBe('invalid_grant');
    const c2 = await codeFor(client._id, pkce);
    expect(
      (await token({ grant_type: 'authorization_code', code: c2, redirect_uri: 'https://rp.example/other', code_verifier: verifier }, auth)).body.error,
    ).toBe('invalid_grant');
    const c3 = await codeFor(client._id, pkce);
    expect((await token({ grant_type: 'authorization_code', code: c3, redirect_uri: REDIRECT, code_verifier: newSecret() + 'zzz' }, auth)).body.error).toBe(
      'invalid_grant',
    );
    const c4 = await codeFor(client._id, pkce);
    expect((await token({ grant_type: 'authorization_code', code: c4, redirect_uri: REDIRECT }, auth, true)).body.error).toBe('invalid_grant');
    const c5 = await codeFor(client._id, pkce);
    expect((await token({ grant_type: 'authorization_code', code: c5, redirect_uri: REDIRECT, code_verifier: 'too-short' }, auth)).body).toEqual({
      error: 'invalid_request',
      error_description: expect.stringMatching(/43-128/),
    });
  });

  it('lets a public client exchange a code with PKCE and no secret', async () => {
    const { client } = await newRp(api.deps, { ...RP, public: true });
    const verifier = newSecret() + 'pub';
    const code = await codeFor(client._id, { code_challenge: s256Challenge(verifier), code_challenge_method: 'S256' });
    const r = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: client._id, code_verifier: verifier });
    expect(r.res.status).toBe(200);
    expect(r.body.token_type).toBe('Bearer');
  });
});

describe('UserInfo and profile API errors', () => {
  it('answers 401 with resource_metadata without a token, and invalid_token for a bad one', async () => {
    const none = await fetch(`${api.issuer}/api/oauth/userinfo`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${api.issuer}/.well-known/oauth-protected-resource"`);
    const bad = await fetch(`${api.issuer}/api/oauth/userinfo`, { headers: { authorization: 'Bearer abc.def.ghi' } });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="/);
  });

  it('answers 403 insufficient_scope without openid, and lets profile:write change the profile', async () => {
    const { email, user } = await newUser(api.deps, USER);
    const { client, secret: clientSecret } = await newRp(api.deps, RP);
    const back = await authorize(
      new HttpUser(api.issuer),
      { response_type: 'code', client_id: client._id, redirect_uri: REDIRECT, scope: 'profile profile:write' },
      { email },
    );
    const { body } = await token(
      { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT },
      { authorization: basicAuthEncoded(client._id, clientSecret!) },
    );
    expect(body.id_token).toBeUndefined();
    const info = await fetch(`${api.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${body.access_token}` } });
    expect(info.status).toBe(403);
    expect(info.headers.get('www-authenticate')).toMatch(/^Bearer error="insufficient_scope", error_description="[^"]+", scope="openid", resource_metadata="/);
    expect(((await info.json()) as Json).error).toBe('insufficient_scope');

    const patch = (payload: unknown) =>
      fetch(`${api.issuer}/api/oauth/me/profile`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${body.access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify(payload),
      });
    const ok = await patch({ name: 'New Name', picture: 'https://img.example/me.png' });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({
      sub: user._id,
      name: 'New Name',
      preferred_username: user.username,
      picture: 'https://img.example/me.png',
      updated_at: expect.any(Number),
    });
    const bad = await patch({ picture: 'javascript:alert(1)' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Json).error).toBe('invalid_request');
    const unknown = await patch({ email: 'x@example.com' });
    expect(unknown.status).toBe(400);
  });
});

describe('the apps claim (apps:read + oidc_fields "apps")', () => {
  async function idTokenFor(overrides: Partial<NewClientInput>, scope: string) {
    const { email, user } = await newUser(api.deps, USER);
    // The user's own apps: what the claim lists.
    const mine = [
      (
        await createClient(api.deps.store, {
          name: 'Owned <one>',
          redirectUris: [{ type: 'equals', value: 'https://one.example/cb' }],
          allowedScopes: ['openid'],
          ownerUserId: user._id,
          isVerified: true,
        })
      ).client,
      (
        await createClient(api.deps.store, {
          name: 'Owned two',
          redirectUris: [{ type: 'equals', value: 'https://two.example/cb' }],
          allowedScopes: ['openid'],
          ownerUserId: user._id,
        })
      ).client,
    ];
    const { client, secret: clientSecret } = await newRp(api.deps, { ...RP, allowedScopes: ['openid', 'apps:read'], ...overrides });
    const back = await authorize(new HttpUser(api.issuer), { response_type: 'code', client_id: client._id, redirect_uri: REDIRECT, scope }, { email });
    const t = await token(
      { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT },
      { authorization: basicAuthEncoded(client._id, clientSecret!) },
    );
    expect(t.res.status).toBe(200);
    const jwks = createRemoteJWKSet(new URL(`${api.issuer}/.well-known/jwks.json`));
    return { claims: (await jwtVerify(t.body.id_token, jwks, { issuer: api.issuer, audience: client._id })).payload, mine };
  }

  it("lists the user's apps {id, name, client_id, is_verified} when the client opted in and apps:read was granted", async () => {
    const { claims, mine } = await idTokenFor({ oidcFields: ['apps'] }, 'openid apps:read');
    expect(claims.apps).toEqual([
      { id: mine[0]!._id, name: 'Owned <one>', client_id: mine[0]!._id, is_verified: true },
      { id: mine[1]!._id, name: 'Owned two', client_id: mine[1]!._id, is_verified: false },
    ]);
  });

  it('is absent without the opt-in, and without apps:read', async () => {
    expect((await idTokenFor({}, 'openid apps:read')).claims.apps).toBeUndefined();
    expect((await idTokenFor({ oidcFields: ['apps'] }, 'openid')).claims.apps).toBeUndefined();
  });
});
