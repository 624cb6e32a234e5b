// Resource indicators (RFC 8707) over HTTP: validation at authorize, PAR,
// device authorization and token requests, each value one the client lists
// (allowedResources); granted resources in the access token's aud (after the
// issuer when a scope of Keyflow's API is granted, so Keyflow's API accepts the
// token; without such a scope, Keyflow's API refuses it), narrowed at the token
// request and preserved across refreshes while the client still lists them.
import type { NewClientInput } from '../../../lib/model/clients.js';
import { accessTokenAudience, narrowResources, parseResources } from '../../../lib/model/resources.js';
import { s256Challenge } from '../../../lib/model/pkce.js';
import { hashSecret } from '../../../lib/security/secrets.js';
import { findDeviceCode } from '../../../lib/store/device-codes.js';
import { useTestApi, eventually } from '../../support/harness.js';
import { getUserinfo, jwtClaims, postForm } from '../../support/http.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newRp, type FixtureRp } from '../../../tools/fixtures/clients.js';

const PASSWORD = 'resource indicator password';
const REDIRECT = 'https://resource-rp.example/cb';
const API_A = 'https://api-a.example/';
const API_B = 'urn:example:api-b';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

const api = useTestApi();

const RP: NewClientInput = {
  name: 'Resource RP',
  redirectUris: [{ type: 'equals', value: REDIRECT }],
  allowedScopes: ['openid', 'profile', 'offline_access'],
  // Clients may ask only for the resources they list (none by default).
  allowedResources: [API_A, API_B],
  idTokenSignedResponseAlg: 'RS256',
};
const USER = { prefix: 'resource', password: PASSWORD };

const post = (path: string, body: Record<string, string> | [string, string][], headers: Record<string, string> = {}) =>
  postForm(api.issuer, path, body, headers);

function authorizeUrl(params: [string, string][]) {
  const url = new URL('/api/oauth/authorize', api.issuer);
  for (const [k, v] of params) url.searchParams.append(k, v);
  return url.href;
}

const userinfo = (accessToken: string) => getUserinfo(api.issuer, accessToken);

/** The PKCE verifier of every authorization request here, and the parameters that send its challenge. */
const VERIFIER = 'resource-indicators-test-verifier-0123456789-abcdef';
const PKCE: [string, string][] = [
  ['code_challenge', s256Challenge(VERIFIER)],
  ['code_challenge_method', 'S256'],
];

/** Signs a new user in and returns the code for an authorization request with these parameters. */
async function codeFor(rp: FixtureRp, params: [string, string][]) {
  const { email } = await newUser(api.deps, USER);
  const agent = new HttpUser(api.issuer);
  let step = await agent.get(authorizeUrl([['response_type', 'code'], ['client_id', rp.id], ['redirect_uri', REDIRECT], ...PKCE, ...params]));
  if (step.url.includes('/login')) step = await agent.signIn(step, email, PASSWORD);
  if (step.url.includes('/consent')) step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
  if (!step.external) throw new Error(`flow stopped at ${step.url} (${step.res.status})`);
  return step.external.searchParams.get('code')!;
}

const redeem = (rp: FixtureRp, code: string, extra: [string, string][] = []) =>
  post(
    '/api/oauth/token',
    [['grant_type', 'authorization_code'], ['code', code], ['redirect_uri', REDIRECT], ['code_verifier', VERIFIER], ...extra],
    rp.headers,
  );

describe('resource values (model/resources.ts)', () => {
  it('accepts absolute URIs without fragment, repeated, de-duplicated', () => {
    expect(parseResources(undefined)).toEqual({ ok: true, resources: [] });
    expect(parseResources(API_A)).toEqual({ ok: true, resources: [API_A] });
    expect(parseResources([API_A, API_B, API_A])).toEqual({ ok: true, resources: [API_A, API_B] });
    expect(parseResources('https://api.example/v1?tenant=a')).toEqual({ ok: true, resources: ['https://api.example/v1?tenant=a'] });
  });

  it.each([
    ['https://a.example/#'],
    ['https://a.example/#x'],
    ['/relative'],
    ['relative'],
    ['//host/path'],
    [''],
    ['https://a.example/ x'],
    ['https://a.example/\n'],
  ])('refuses %j', (value) => {
    expect(parseResources(value)).toMatchObject({ ok: false, error: 'invalid_target' });
    expect(parseResources([API_A, value])).toMatchObject({ ok: false, error: 'invalid_target' });
  });

  it('refuses more than 10 values, narrows to granted ones, builds aud with the issuer first', () => {
    expect(parseResources(Array.from({ length: 11 }, (_, i) => `https://r${i}.example/`))).toMatchObject({ ok: false });
    const both = [API_A, API_B];
    expect(narrowResources([API_A, API_B], undefined, both)).toEqual({ ok: true, resources: [API_A, API_B] });
    expect(narrowResources([API_A, API_B], API_B, both)).toEqual({ ok: true, resources: [API_B] });
    expect(narrowResources([API_A], API_B, both)).toMatchObject({ ok: false, error: 'invalid_target' });
    // Only what the client still lists.
    expect(narrowResources([API_A, API_B], undefined, [API_A])).toEqual({ ok: true, resources: [API_A] });
    expect(narrowResources([API_A, API_B], API_B, [API_A])).toMatchObject({ ok: false, error: 'invalid_target' });
    const api = { scope: ['openid'], clientId: 'c1' };
    expect(accessTokenAudience('https://id.example', [], api)).toBe('https://id.example');
    expect(accessTokenAudience('https://id.example', undefined, api)).toBe('https://id.example');
    expect(accessTokenAudience('https://id.example', [API_A, 'https://id.example'], api)).toEqual(['https://id.example', API_A]);
  });

  it("names the issuer in aud only for scopes Keyflow's API serves", () => {
    const issuerAud = (scope: string[]) => accessTokenAudience('https://id.example', [API_A], { scope, clientId: 'c1' });
    for (const scope of [
      ['openid'],
      ['profile'],
      ['email'],
      ['profile:write'],
      ['apps:read'],
      ['webhooks:write'],
      ['admin:users:read'],
      ['teams:read'],
      ['domains:read'],
      ['gpg:write'],
      ['social:read'],
      ['offline_access', 'email'],
    ]) {
      expect([scope, issuerAud(scope)]).toEqual([scope, ['https://id.example', API_A]]);
    }
    for (const scope of [['offline_access'], ['app:c2:*'], ['offline_access', 'app:c2:*']]) {
      expect([scope, issuerAud(scope)]).toEqual([scope, API_A]);
    }
    // Neither a Keyflow scope nor a resource: the client itself (aud is required).
    expect(accessTokenAudience('https://id.example', [], { scope: ['app:c2:*'], clientId: 'c1' })).toBe('c1');
  });
});

describe('resource indicators: validation', () => {
  it.each([
    ['a fragment', `${API_A}#frag`],
    ['a relative URI', '/api/things'],
    ['no scheme', 'api-a.example'],
    ['an empty value', ''],
  ])('refuses a resource with %s at the authorization endpoint (redirect), PAR (JSON) and device authorization (JSON)', async (_name, resource) => {
    const rp = await newRp(api.deps, RP);
    const res = await fetch(
      authorizeUrl([
        ['response_type', 'code'],
        ['client_id', rp.id],
        ['redirect_uri', REDIRECT],
        ['scope', 'openid'],
        ['state', 'rs'],
        ['resource', resource],
      ]),
      { redirect: 'manual' },
    );
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(Object.fromEntries(back.searchParams)).toEqual({ error: 'invalid_target', error_description: expect.any(String), state: 'rs', iss: api.issuer });

    const par = await post(
      '/api/oauth/par',
      [
        ['response_type', 'code'],
        ['redirect_uri', REDIRECT],
        ['scope', 'openid'],
        ['resource', API_A],
        ['resource', resource],
      ],
      rp.headers,
    );
    expect([par.res.status, par.body]).toEqual([400, { error: 'invalid_target', error_description: expect.any(String) }]);

    const device = await post(
      '/api/oauth/device_authorization',
      [
        ['scope', 'openid'],
        ['resource', resource],
      ],
      rp.headers,
    );
    expect([device.res.status, device.body]).toEqual([400, { error: 'invalid_target', error_description: expect.any(String) }]);
  });

  it('refuses a resource the client does not list, at the authorization endpoint, PAR and device authorization', async () => {
    const rp = await newRp(api.deps, { ...RP, allowedResources: [API_A] });
    const unlisted = 'https://unlisted.example/';
    const res = await fetch(
      authorizeUrl([
        ['response_type', 'code'],
        ['client_id', rp.id],
        ['redirect_uri', REDIRECT],
        ['scope', 'openid'],
        ['state', 'rs'],
        ['resource', unlisted],
        ...PKCE,
      ]),
      { redirect: 'manual' },
    );
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
    const par = await post(
      '/api/oauth/par',
      [['response_type', 'code'], ['redirect_uri', REDIRECT], ['scope', 'openid'], ['resource', API_A], ['resource', unlisted], ...PKCE],
      rp.headers,
    );
    expect([par.res.status, par.body.error]).toEqual([400, 'invalid_target']);
    const device = await post(
      '/api/oauth/device_authorization',
      [
        ['scope', 'openid'],
        ['resource', API_A],
        ['resource', unlisted],
      ],
      rp.headers,
    );
    expect([device.res.status, device.body]).toEqual([400, { error: 'invalid_target', error_description: expect.stringContaining(unlisted) }]);
    // A client that lists none may name none.
    const none = await newRp(api.deps, { ...RP, allowedResources: [] });
    expect(
      (
        await post(
          '/api/oauth/device_authorization',
          [
            ['scope', 'openid'],
            ['resource', API_A],
          ],
          none.headers,
        )
      ).body.error,
    ).toBe('invalid_target');
    expect(
      (
        await post(
          '/api/oauth/device_authorization',
          [
            ['scope', 'openid'],
            ['resource', API_A],
          ],
          rp.headers,
        )
      ).res.status,
    ).toBe(200);
  });

  it('refuses a malformed or ungranted resource at the token request', async () => {
    const rp = await newRp(api.deps, RP);
    const fragment = await redeem(
      rp,
      await codeFor(rp, [
        ['scope', 'openid'],
        ['resource', API_A],
      ]),
      [['resource', `${API_A}#x`]],
    );
    expect([fragment.res.status, fragment.body.error]).toEqual([400, 'invalid_target']);
    const relative = await redeem(
      rp,
      await codeFor(rp, [
        ['scope', 'openid'],
        ['resource', API_A],
      ]),
      [['resource', 'relative/path']],
    );
    expect([relative.res.status, relative.body.error]).toEqual([400, 'invalid_target']);
    const ungranted = await redeem(
      rp,
      await codeFor(rp, [
        ['scope', 'openid'],
        ['resource', API_A],
      ]),
      [['resource', API_B]],
    );
    expect([ungranted.res.status, ungranted.body.error]).toEqual([400, 'invalid_target']);
    const none = await redeem(rp, await codeFor(rp, [['scope', 'openid']]), [['resource', API_A]]);
    expect([none.res.status, none.body.error]).toEqual([400, 'invalid_target']);
  });
});

describe('resource indicators: audience', () => {
  it('keeps aud the issuer alone without resources', async () => {
    const rp = await newRp(api.deps, RP);
    const { body } = await redeem(rp, await codeFor(rp, [['scope', 'openid']]));
    expect(jwtClaims(body.access_token).aud).toBe(api.issuer);
  });

  it('adds every granted resource to aud after the issuer; Keyflow still accepts the token', async () => {
    const rp = await newRp(api.deps, RP);
    const { res, body } = await redeem(
      rp,
      await codeFor(rp, [
        ['scope', 'openid'],
        ['resource', API_A],
        ['resource', API_B],
      ]),
    );
    expect(res.status).toBe(200);
    expect(jwtClaims(body.access_token).aud).toEqual([api.issuer, API_A, API_B]);
    expect((await userinfo(body.access_token)).status).toBe(200);
    const introspection = await post('/api/oauth/introspect', { token: body.access_token }, rp.headers);
    expect(introspection.body).toMatchObject({ active: true, aud: [api.issuer, API_A, API_B] });
  });

  it('narrows at the token request, and keeps every granted resource across refreshes', async () => {
    const rp = await newRp(api.deps, RP);
    const code = await codeFor(rp, [
      ['scope', 'openid offline_access'],
      ['resource', API_A],
      ['resource', API_B],
    ]);
    const first = await redeem(rp, code, [['resource', API_A]]);
    expect(first.res.status).toBe(200);
    expect(jwtClaims(first.body.access_token).aud).toEqual([api.issuer, API_A]);

    // A refresh without resource: every resource of the grant.
    const r1 = await post('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: first.body.refresh_token }, rp.headers);
    expect(r1.res.status).toBe(200);
    expect(jwtClaims(r1.body.access_token).aud).toEqual([api.issuer, API_A, API_B]);
    // A refresh may narrow too, and the next one still has them all.
    const r2 = await post('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: r1.body.refresh_token, resource: API_B }, rp.headers);
    expect(r2.res.status).toBe(200);
    expect(jwtClaims(r2.body.access_token).aud).toEqual([api.issuer, API_B]);
    // An ungranted resource is refused before the rotation: the token stays current.
    const bad = await post(
      '/api/oauth/token',
      { grant_type: 'refresh_token', refresh_token: r2.body.refresh_token, resource: 'https://other.example/' },
      rp.headers,
    );
    expect([bad.res.status, bad.body.error]).toEqual([400, 'invalid_target']);
    const r3 = await post('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: r2.body.refresh_token }, rp.headers);
    expect(r3.res.status).toBe(200);
    expect(jwtClaims(r3.body.access_token).aud).toEqual([api.issuer, API_A, API_B]);
  });

  it("leaves the issuer out of aud without a Keyflow API scope: Keyflow's API refuses the token, introspection, refresh and revocation still work", async () => {
    const rp = await newRp(api.deps, RP);
    const { res, body } = await redeem(
      rp,
      await codeFor(rp, [
        ['scope', 'offline_access'],
        ['resource', API_A],
      ]),
    );
    expect(res.status).toBe(200);
    const claims = jwtClaims(body.access_token);
    expect(claims).toMatchObject({ aud: API_A, scope: 'offline_access', sid: expect.any(String) });
    // Keyflow's API: invalid_token (not insufficient_scope: the token is not meant for it at all).
    const info = await userinfo(body.access_token);
    expect(info.status).toBe(401);
    expect(info.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    // Even where any scope would do (the sudo window revocation takes a session's token of any scope).
    const sudo = await fetch(`${api.issuer}/api/oauth/2fa/sudo/revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${body.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: rp.id }),
    });
    expect(sudo.status).toBe(401);
    // The client's own endpoints still know it.
    expect((await post('/api/oauth/introspect', { token: body.access_token }, rp.headers)).body).toMatchObject({ active: true, aud: API_A, client_id: rp.id });
    const refreshed = await post('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: body.refresh_token }, rp.headers);
    expect(refreshed.res.status).toBe(200);
    expect(jwtClaims(refreshed.body.access_token).aud).toBe(API_A);
    expect((await post('/api/oauth/revoke', { token: refreshed.body.access_token }, rp.headers)).res.status).toBe(200);
    expect((await post('/api/oauth/introspect', { token: refreshed.body.access_token }, rp.headers)).body).toEqual({ active: false });
  });

  it('gives code exchanges and refreshes only the resources the client still lists', async () => {
    const rp = await newRp(api.deps, RP);
    const first = await redeem(
      rp,
      await codeFor(rp, [
        ['scope', 'openid offline_access'],
        ['resource', API_A],
        ['resource', API_B],
      ]),
    );
    expect(jwtClaims(first.body.access_token).aud).toEqual([api.issuer, API_A, API_B]);
    const pendingCode = await codeFor(rp, [
      ['scope', 'openid'],
      ['resource', API_A],
      ['resource', API_B],
    ]);

    // The operator takes API_B off the client's list; the api sees it once its 2-second client cache has.
    await api.deps.store.clients.updateOne({ _id: rp.id }, { $set: { allowedResources: [API_A] } });
    await eventually(async () => {
      const res = await fetch(
        authorizeUrl([['response_type', 'code'], ['client_id', rp.id], ['redirect_uri', REDIRECT], ['scope', 'openid'], ['resource', API_B], ...PKCE]),
        { redirect: 'manual' },
      );
      expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
    });

    const redeemed = await redeem(rp, pendingCode);
    expect(jwtClaims(redeemed.body.access_token).aud).toEqual([api.issuer, API_A]);
    const asked = await post(
      '/api/oauth/token',
      [
        ['grant_type', 'refresh_token'],
        ['refresh_token', first.body.refresh_token],
        ['resource', API_B],
      ],
      rp.headers,
    );
    expect([asked.res.status, asked.body.error]).toEqual([400, 'invalid_target']);
    const refreshed = await post('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: first.body.refresh_token }, rp.headers);
    expect(refreshed.res.status).toBe(200);
    expect(jwtClaims(refreshed.body.access_token).aud).toEqual([api.issuer, API_A]);
  });

  it('takes resources from a pushed authorization request', async () => {
    const rp = await newRp(api.deps, RP);
    const pushed = await post(
      '/api/oauth/par',
      [['response_type', 'code'], ['redirect_uri', REDIRECT], ['scope', 'openid'], ['resource', API_A], ...PKCE],
      rp.headers,
    );
    expect(pushed.res.status).toBe(201);
    const { email } = await newUser(api.deps, USER);
    const agent = new HttpUser(api.issuer);
    let step = await agent.get(`/api/oauth/authorize?${new URLSearchParams({ client_id: rp.id, request_uri: pushed.body.request_uri })}`);
    step = await agent.signIn(step, email, PASSWORD);
    step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
    const { body } = await redeem(rp, step.external!.searchParams.get('code')!);
    expect(jwtClaims(body.access_token).aud).toEqual([api.issuer, API_A]);
  });

  it('keeps the resources of a device authorization through approval and redemption', async () => {
    const rp = await newRp(api.deps, RP);
    const started = await post(
      '/api/oauth/device_authorization',
      [
        ['scope', 'openid'],
        ['resource', API_A],
        ['resource', API_B],
      ],
      rp.headers,
    );
    expect(started.res.status).toBe(200);
    const { device_code: deviceCode, user_code: userCode } = started.body;
    expect((await findDeviceCode(api.deps.store, hashSecret(deviceCode)))?.resources).toEqual([API_A, API_B]);

    const { email } = await newUser(api.deps, USER);
    const agent = new HttpUser(api.issuer);
    const entry = await agent.get('/device');
    let step = await agent.submit(await entry.res.text(), '/device', { user_code: userCode });
    if (step.url.includes('/login')) step = await agent.signIn(step, email, PASSWORD);
    expect(new URL(step.url).pathname).toBe('/device/consent');
    const done = await agent.submit(await step.res.text(), '/device/consent', { decision: 'allow' });
    expect(done.res.status).toBe(200);
    // Narrowing to an ungranted resource is refused without using the approval up. Polled until the
    // approval reaches the token endpoint (the projection's status, then the end of its pacing document).
    await eventually(async () => {
      const bad = await post(
        '/api/oauth/token',
        [
          ['grant_type', DEVICE_GRANT],
          ['device_code', deviceCode],
          ['resource', 'https://other.example/'],
        ],
        rp.headers,
      );
      expect([bad.res.status, bad.body.error]).toEqual([400, 'invalid_target']);
    });
    expect((await findDeviceCode(api.deps.store, hashSecret(deviceCode)))?.status).toBe('approved');
    const ok = await post(
      '/api/oauth/token',
      [
        ['grant_type', DEVICE_GRANT],
        ['device_code', deviceCode],
        ['resource', API_B],
      ],
      rp.headers,
    );
    expect(ok.res.status).toBe(200);
    expect(jwtClaims(ok.body.access_token).aud).toEqual([api.issuer, API_B]);
  });
});
