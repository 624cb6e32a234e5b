// The `claims` authorization request parameter (OIDC Core §5.5) over HTTP:
// individual standard claims for the ID token and UserInfo beyond the scopes
// (consented like scopes, and only those the client could ask for by scope),
// `sub` with a value, an essential `acr`, bad input, and the placement of the
// scopes' claims (ID_TOKEN_CLAIMS=requested: UserInfo only, as §5.4 has it
// when an access token is issued); and openid-client asking for claims.
import * as oidc from 'openid-client';
import type { RunningApi } from '../../../api/server.js';
import { createUser } from '../../../lib/store/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { startTestApi, type Json } from '../../support/harness.js';
import { FLOW_PASSWORD, FLOW_REDIRECT, newTestRp, runCodeFlow, type TestRp } from '../../support/token-flow.js';
import { getUserinfo, jwtClaims } from '../../support/http.js';
import type { UserDoc } from '../../../lib/model/users.js';

let api: RunningApi;
let conforming: RunningApi;
beforeAll(async () => {
  [api, conforming] = await Promise.all([startTestApi(), startTestApi({ ID_TOKEN_CLAIMS: 'requested' })]);
});
afterAll(() => Promise.all([api?.stop(), conforming?.stop()]));

const claims = (value: unknown) => ['claims', JSON.stringify(value)] as [string, string];

async function person(on: RunningApi, name = 'Claire Claims'): Promise<{ email: string; doc: UserDoc }> {
  const email = uniqueEmail('claims');
  return { email, doc: await createUser(on.deps.store, { email, password: FLOW_PASSWORD, name }) };
}

async function userinfo(on: RunningApi, accessToken: string): Promise<Json> {
  return (await getUserinfo(on, accessToken)).json();
}

/** An authorization request with an agent already signed in and consented; the redirect it ends in (no redemption). */
async function authorize(on: RunningApi, rp: TestRp, agent: HttpUser, extra: [string, string][]) {
  const url = new URL('/api/oauth/authorize', on.url);
  for (const [k, v] of [
    ['response_type', 'code'],
    ['client_id', rp.id],
    ['redirect_uri', FLOW_REDIRECT],
    ['code_challenge', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'],
    ['code_challenge_method', 'S256'],
    ...extra,
  ] as [string, string][])
    url.searchParams.append(k, v);
  return agent.get(url.href);
}

describe('the claims parameter', () => {
  it('releases individual claims where they were asked for, beyond the scopes', async () => {
    const rp = await newTestRp(api);
    const who = await person(api);
    const { tokens } = await runCodeFlow(api, rp, 'openid', {
      user: who,
      extra: [claims({ userinfo: { name: { essential: true }, email: null }, id_token: { email: { essential: true }, auth_time: { essential: true } } })],
    });
    const id = jwtClaims(tokens.id_token);
    expect(id).toMatchObject({ email: who.email, auth_time: expect.any(Number) });
    expect(id).not.toHaveProperty('name');
    expect(await userinfo(api, tokens.access_token)).toEqual({ sub: who.doc._id, name: 'Claire Claims', email: who.email });
    const discovery = (await (await fetch(`${api.url}/.well-known/openid-configuration`)).json()) as Json;
    expect(discovery.claims_parameter_supported).toBe(true);
  });

  it('gives a client nothing it could not ask for by scope, and nothing the user has no value for', async () => {
    const rp = await newTestRp(api, { allowedScopes: ['openid', 'email'] });
    const who = await person(api);
    const { tokens } = await runCodeFlow(api, rp, 'openid', {
      user: who,
      extra: [claims({ userinfo: { name: { essential: true }, email: null, phone_number: null, unknown_claim: null }, id_token: { picture: null } })],
    });
    expect(await userinfo(api, tokens.access_token)).toEqual({ sub: who.doc._id, email: who.email });
    expect(jwtClaims(tokens.id_token)).not.toHaveProperty('picture');
  });

  it('asks for consent to claims not allowed before, and remembers them', async () => {
    const rp = await newTestRp(api);
    const who = await person(api);
    const { agent } = await runCodeFlow(api, rp, 'openid', { user: who, extra: [claims({ userinfo: { email: null } })] });
    const remembered = await authorize(api, rp, agent, [['scope', 'openid'], ['prompt', 'none'], claims({ userinfo: { email: null } })]);
    expect(remembered.external?.searchParams.get('code')).toEqual(expect.any(String));
    const more = await authorize(api, rp, agent, [['scope', 'openid'], ['prompt', 'none'], claims({ userinfo: { email: null, name: null } })]);
    expect(more.external?.searchParams.get('error')).toBe('consent_required');
    // The consent page names what is asked for one by one.
    const asked = await authorize(api, rp, agent, [['scope', 'openid'], claims({ userinfo: { name: null }, id_token: { phone_number: null } })]);
    expect(asked.url).toContain('/consent');
    const page = await asked.res.text();
    expect(page).toContain('Your name');
  });

  it('answers for the user named in id_token.sub only', async () => {
    const rp = await newTestRp(api);
    const [a, b] = [await person(api), await person(api)];
    const { agent } = await runCodeFlow(api, rp, 'openid', { user: a });
    const asB = await authorize(api, rp, agent, [['scope', 'openid'], ['prompt', 'none'], claims({ id_token: { sub: { value: b.doc._id } } })]);
    expect(asB.external?.searchParams.get('error')).toBe('login_required');
    const asA = await authorize(api, rp, agent, [['scope', 'openid'], ['prompt', 'none'], claims({ id_token: { sub: { value: a.doc._id } } })]);
    expect(asA.external?.searchParams.get('code')).toEqual(expect.any(String));
    // Asked to sign in again for B, A signs in: refused rather than answered for A.
    const again = await authorize(api, rp, agent, [['scope', 'openid'], claims({ id_token: { sub: { value: b.doc._id } } })]);
    expect(again.url).toContain('/login');
    const signedIn = await agent.signIn(again, a.email, FLOW_PASSWORD);
    expect(signedIn.external?.searchParams.get('error')).toBe('access_denied');
  });

  it('refuses an authentication that meets no essential acr', async () => {
    const rp = await newTestRp(api);
    const who = await person(api);
    const { agent } = await runCodeFlow(api, rp, 'openid', { user: who });
    // The user has no second factor: mfa cannot be met.
    const mfa = await authorize(api, rp, agent, [['scope', 'openid'], claims({ id_token: { acr: { essential: true, values: ['mfa'] } } })]);
    expect([mfa.external?.searchParams.get('error'), mfa.external?.searchParams.get('error_description')]).toEqual([
      'access_denied',
      expect.stringContaining('acr'),
    ]);
    const voluntary = await authorize(api, rp, agent, [['scope', 'openid'], claims({ id_token: { acr: { values: ['mfa'] } } })]);
    expect(voluntary.external?.searchParams.get('code')).toEqual(expect.any(String));
  });

  it.each([
    ['not JSON', '{"userinfo":'],
    ['not an object', '"name"'],
    ['a member that is not an object', '{"userinfo":["name"]}'],
    ['an individual request that is not an object', '{"userinfo":{"name":true}}'],
    ['essential that is not a boolean', '{"userinfo":{"name":{"essential":"yes"}}}'],
    ['a sub value that is not a string', '{"id_token":{"sub":{"value":42}}}'],
    ['an essential acr Keyflow never meets', '{"id_token":{"acr":{"essential":true,"values":["urn:example:loa:4"]}}}'],
    ['too long', JSON.stringify({ userinfo: { name: { values: ['x'.repeat(5000)] } } })],
  ])('refuses a claims parameter that is %s with invalid_request', async (_what, value) => {
    const rp = await newTestRp(api);
    const { agent } = await runCodeFlow(api, rp, 'openid');
    const step = await authorize(api, rp, agent, [
      ['scope', 'openid'],
      ['state', 's'],
      ['claims', value],
    ]);
    expect(step.external?.searchParams.get('error')).toBe('invalid_request');
    expect(step.external?.searchParams.get('error_description')).toContain('claims');
    expect(step.external?.searchParams.get('state')).toBe('s');
  });
});

describe('ID_TOKEN_CLAIMS=requested', () => {
  it('puts the scopes’ claims at UserInfo only, and in the ID token those asked for there', async () => {
    const rp = await newTestRp(conforming);
    const who = await person(conforming);
    const plain = await runCodeFlow(conforming, rp, 'openid profile email', { user: who });
    const id = jwtClaims(plain.tokens.id_token);
    for (const claim of ['email', 'email_verified', 'name', 'preferred_username']) expect(id).not.toHaveProperty(claim);
    expect(id).toMatchObject({ role: 'user', at_hash: expect.any(String) });
    expect(await userinfo(conforming, plain.tokens.access_token)).toMatchObject({
      email: who.email,
      name: 'Claire Claims',
      preferred_username: expect.any(String),
    });
    const asked = await runCodeFlow(conforming, rp, 'openid profile email', { user: who, agent: plain.agent, extra: [claims({ id_token: { email: null } })] });
    expect(jwtClaims(asked.tokens.id_token)).toMatchObject({ email: who.email });
    expect(jwtClaims(asked.tokens.id_token)).not.toHaveProperty('name');
  });
});

describe('openid-client asking for claims', () => {
  it('sends a claims request and gets the claims it asked for, checked by the library', async () => {
    const rp = await newTestRp(api);
    const who = await person(api, 'Rita Library');
    const [id, pass] = Buffer.from(rp.auth.authorization.replace(/^Basic /, ''), 'base64')
      .toString()
      .split(':')
      .map(decodeURIComponent);
    const config = await oidc.discovery(new URL(api.url), id!, { id_token_signed_response_alg: 'RS256' }, oidc.ClientSecretBasic(pass), {
      execute: [oidc.allowInsecureRequests],
    });
    expect(config.serverMetadata().claims_parameter_supported).toBe(true);
    const verifier = oidc.randomPKCECodeVerifier();
    const checks = { pkceCodeVerifier: verifier, expectedNonce: oidc.randomNonce(), expectedState: oidc.randomState() };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: FLOW_REDIRECT,
      scope: 'openid',
      nonce: checks.expectedNonce,
      state: checks.expectedState,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      claims: JSON.stringify({ id_token: { name: { essential: true } }, userinfo: { email: { essential: true } } }),
    });
    const agent = new HttpUser(api.url);
    let step = await agent.get(url.href);
    step = await agent.signIn(step, who.email, FLOW_PASSWORD);
    step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
    const tokens = await oidc.authorizationCodeGrant(config, step.external!, checks);
    expect(tokens.claims()).toMatchObject({ sub: who.doc._id, name: 'Rita Library', nonce: checks.expectedNonce });
    const info = await oidc.fetchUserInfo(config, tokens.access_token, who.doc._id);
    expect(info).toEqual({ sub: who.doc._id, email: who.email });
  });
});
