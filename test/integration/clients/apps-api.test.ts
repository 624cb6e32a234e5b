// The app API (/api/oauth/me/apps) and the /account/apps page: CRUD of the
// user's own apps with every field of the Application table, secret shown
// once and rotated (the old one stops working), other users' apps 404, scopes.
import { generate, generateSecret } from 'otplib';
import { seal } from '../../../lib/security/kek.js';
import { newSecret } from '../../../lib/security/secrets.js';
import { createClient, findClient } from '../../../lib/store/clients.js';
import { createPersonalAccessToken } from '../../../lib/store/personal-access-tokens.js';
import { useTestApi, eventually, type Json } from '../../support/harness.js';
import { basicAuthEncoded, requestJson } from '../../support/http.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { withPkce, withVerifier } from '../../../tools/fixtures/pkce.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';

const PASSWORD = 'apps api test password';
const api = useTestApi();

/** A user with personal access tokens: read-write, read-only, write-only. */
async function userWithTokens() {
  const { email, user } = await newUser(api.deps, { prefix: 'apps', password: PASSWORD });
  const token = async (scope: string[]) => (await createPersonalAccessToken(api.deps.store, user._id, { name: 't', scope, expiresInDays: 1 })).token;
  return { email, user, rw: await token(['apps:read', 'apps:write']), ro: await token(['apps:read']), wo: await token(['apps:write']) };
}

const call = (token: string | null, method: string, path = '', body?: unknown) =>
  requestJson(`${api.issuer}/api/oauth/me/apps${path}`, method, { token, body });

/**
 * An OAuth access token (apps:read apps:write) from a browser-like sign-in: with
 * `totpSecret`, the second-factor page is answered with a current TOTP code.
 */
async function oauthToken(email: string, extra: Record<string, string>, totpSecret?: string): Promise<string> {
  const { client, clientSecret } = await createClient(api.deps.store, {
    name: 'Step-up RP',
    redirectUris: [{ type: 'equals', value: REDIRECT_UP }],
    allowedScopes: ['openid', 'apps:read', 'apps:write'],
    idTokenSignedResponseAlg: 'RS256',
  });
  const agent = new HttpUser(api.issuer);
  let step = await agent.get(
    `/api/oauth/authorize?${new URLSearchParams(withPkce({ response_type: 'code', client_id: client._id, redirect_uri: REDIRECT_UP, scope: 'openid apps:read apps:write', ...extra }))}`,
  );
  if (step.url.includes('/login')) step = await agent.signIn(step, email, PASSWORD);
  if (step.url.includes('/login/second-factor'))
    step = await agent.submit(await step.res.text(), '/login/second-factor', { code: await generate({ secret: totpSecret! }) });
  if (step.url.includes('/consent')) step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
  const res = await fetch(`${api.issuer}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuthEncoded(client._id, clientSecret!) },
    body: new URLSearchParams(withVerifier({ grant_type: 'authorization_code', code: step.external!.searchParams.get('code')!, redirect_uri: REDIRECT_UP })),
  });
  return ((await res.json()) as Json).access_token;
}
const REDIRECT_UP = 'https://step-up-rp.example/cb';

/** Enrolls an authenticator for the user and returns an OAuth token from a two-factor sign-in (acr=mfa). */
async function mfaToken(user: { _id: string }, email: string): Promise<string> {
  const secret = generateSecret();
  await api.deps.store.users.updateOne(
    { _id: user._id },
    { $set: { totp: { secret: seal(api.deps.kek, Buffer.from(secret), `totp:${user._id}`), lastTimeStep: null, enabledAt: new Date() } } },
  );
  return oauthToken(email, { acr_values: 'mfa' }, secret);
}

/** The token endpoint's verdict on a client secret: invalid_grant (bogus code) when the secret is right, invalid_client when not. */
async function secretVerdict(clientId: string, secret: string): Promise<string> {
  const res = await fetch(`${api.issuer}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuthEncoded(clientId, secret) },
    body: new URLSearchParams(withVerifier({ grant_type: 'authorization_code', code: newSecret(), redirect_uri: 'https://app.example/cb' })),
  });
  return ((await res.json()) as Json).error;
}

const FULL = {
  name: 'Full app',
  description: 'every field',
  redirect_uris: ['https://app.example/cb', { type: 'wildcard', value: 'https://*.app.example/cb' }, { type: 'regex', value: '^https://app\\.example/(a|b)$' }],
  allowed_scopes: ['openid', 'profile', 'apps:read'],
  oidc_fields: ['apps', 'teams'],
  post_logout_redirect_uris: ['https://app.example/bye'],
  backchannel_logout_uri: 'https://app.example/backchannel',
  token_endpoint_auth_method: 'client_secret_post',
  id_token_signed_response_alg: 'RS256',
};

describe('app API', () => {
  it('creates (secret shown once), lists, reads, updates and deletes the user’s apps', async () => {
    const { user, rw, email } = await userWithTokens();
    const created = await call(rw, 'POST', '', FULL);
    expect(created.res.status).toBe(201);
    expect(created.body).toEqual({
      client_id: expect.any(String),
      client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      name: 'Full app',
      description: 'every field',
      public: false,
      redirect_uris: [{ type: 'equals', value: 'https://app.example/cb' }, FULL.redirect_uris[1], FULL.redirect_uris[2]],
      allowed_scopes: FULL.allowed_scopes,
      oidc_fields: ['apps', 'teams'],
      post_logout_redirect_uris: ['https://app.example/bye'],
      backchannel_logout_uri: 'https://app.example/backchannel',
      token_endpoint_auth_method: 'client_secret_post',
      jwks: null,
      jwks_uri: null,
      id_token_signed_response_alg: 'RS256',
      userinfo_signed_response_alg: null,
      introspection_signed_response_alg: null,
      request_object_signing_alg: null,
      request_uris: [],
      require_pushed_authorization_requests: false,
      fapi_profile: null,
      require_signed_request_object: false,
      allowed_resources: [],
      require_pkce: true,
      authorization_signed_response_alg: null,
      access_token_signed_response_alg: null,
      machine_access: [],
      is_verified: false,
      is_active: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const id = created.body.client_id as string;
    expect((await findClient(api.deps.store, id))!.ownerUserId).toBe(user._id);
    expect(await secretVerdict(id, created.body.client_secret)).toBe('invalid_grant');

    const list = await call(rw, 'GET');
    expect(list.res.status).toBe(200);
    expect(list.body.apps.map((a: Json) => a.client_id)).toEqual([id]);
    expect(list.body.apps[0].client_secret).toBeUndefined();
    const one = await call(rw, 'GET', `/${id}`);
    expect(one.body).toEqual({ ...created.body, client_secret: undefined });

    // Keys and auth method are credentials: the change needs a recent two-factor sign-in.
    const strong = await mfaToken(user, email);
    const patched = await call(strong, 'PATCH', `/${id}`, {
      name: 'Renamed',
      oidc_fields: ['gpg_keys'],
      jwks_uri: 'https://app.example/jwks',
      token_endpoint_auth_method: 'private_key_jwt',
      require_pushed_authorization_requests: true,
    });
    expect(patched.res.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'Renamed',
      oidc_fields: ['gpg_keys'],
      jwks_uri: 'https://app.example/jwks',
      token_endpoint_auth_method: 'private_key_jwt',
      require_pushed_authorization_requests: true,
      // Fields the patch does not name are unchanged.
      description: 'every field',
      redirect_uris: created.body.redirect_uris,
      post_logout_redirect_uris: ['https://app.example/bye'],
      backchannel_logout_uri: 'https://app.example/backchannel',
    });
    expect(patched.body.client_secret).toBeUndefined();
    // Back to a secret: a new one is made and shown this once.
    const back = await call(strong, 'PATCH', `/${id}`, { token_endpoint_auth_method: 'client_secret_basic', jwks_uri: null });
    expect(back.body.client_secret).toEqual(expect.any(String));

    const del = await call(rw, 'DELETE', `/${id}`);
    expect(del.res.status).toBe(204);
    expect((await call(rw, 'GET', `/${id}`)).res.status).toBe(404);
    expect(await findClient(api.deps.store, id)).toBeNull();
  });

  it('asks for a recent second factor before rotating a secret (RFC 9470), then rotates it', async () => {
    const { email, user, rw } = await userWithTokens();
    const { body: app } = await call(rw, 'POST', '', { name: 'Rotating', redirect_uris: ['https://app.example/cb'] });
    expect(await secretVerdict(app.client_id, app.client_secret)).toBe('invalid_grant');

    // A password-only OAuth token (and a PAT) falls short: 401 with the step-up challenge.
    const pwdToken = await oauthToken(email, {});
    for (const token of [pwdToken, rw]) {
      const refused = await call(token, 'POST', `/${app.client_id}/secret`);
      expect(refused.res.status).toBe(401);
      expect(refused.body.error).toBe('insufficient_user_authentication');
      expect(refused.res.headers.get('www-authenticate')).toMatch(
        /^Bearer error="insufficient_user_authentication", error_description="[^"]+", acr_values="mfa", max_age=900, resource_metadata="/,
      );
    }
    // The user enrolls an authenticator; the client repeats the authorization with acr_values=mfa.
    const secret = generateSecret();
    await api.deps.store.users.updateOne(
      { _id: user._id },
      { $set: { totp: { secret: seal(api.deps.kek, Buffer.from(secret), `totp:${user._id}`), lastTimeStep: null, enabledAt: new Date() } } },
    );
    const mfaToken = await oauthToken(email, { acr_values: 'mfa' }, secret);
    const rotated = await call(mfaToken, 'POST', `/${app.client_id}/secret`);
    expect(rotated.res.status).toBe(200);
    expect(rotated.body).toEqual({ client_id: app.client_id, client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect(rotated.body.client_secret).not.toBe(app.client_secret);
    // Within the token endpoint's 2 s client cache.
    await eventually(async () => expect(await secretVerdict(app.client_id, app.client_secret)).toBe('invalid_client'), 5_000);
    expect(await secretVerdict(app.client_id, rotated.body.client_secret)).toBe('invalid_grant');
    // A public app has no secret to rotate.
    const { body: pub } = await call(rw, 'POST', '', { name: 'SPA', public: true, redirect_uris: ['https://app.example/cb'] });
    expect(pub.client_secret).toBeUndefined();
    expect(pub.token_endpoint_auth_method).toBe('none');
    expect((await call(mfaToken, 'POST', `/${pub.client_id}/secret`)).res.status).toBe(400);
  });

  it('asks for a recent second factor before changing redirect URIs, keys, auth method or PKCE (RFC 9470); other fields need none', async () => {
    const { email, user, rw } = await userWithTokens();
    const { body: app } = await call(rw, 'POST', '', { name: 'Guarded', redirect_uris: ['https://app.example/cb'] });
    const pwdToken = await oauthToken(email, {});
    const sensitive: Record<string, unknown>[] = [
      { redirect_uris: ['https://attacker.example/cb'] },
      { redirect_uris: [{ type: 'regex', value: '.*' }] },
      { post_logout_redirect_uris: ['https://attacker.example/bye'] },
      { backchannel_logout_uri: 'https://attacker.example/bcl' },
      { token_endpoint_auth_method: 'client_secret_post' },
      { public: true },
      { jwks_uri: 'https://attacker.example/jwks', token_endpoint_auth_method: 'private_key_jwt' },
      { require_pkce: false },
    ];
    for (const patch of sensitive) {
      for (const token of [rw, pwdToken]) {
        const refused = await call(token, 'PATCH', `/${app.client_id}`, patch);
        expect([JSON.stringify(patch), refused.res.status, refused.body.error]).toEqual([JSON.stringify(patch), 401, 'insufficient_user_authentication']);
        expect(refused.res.headers.get('www-authenticate')).toMatch(/acr_values="mfa", max_age=900/);
      }
    }
    // Nothing changed.
    expect((await call(rw, 'GET', `/${app.client_id}`)).body).toMatchObject({
      redirect_uris: [{ type: 'equals', value: 'https://app.example/cb' }],
      token_endpoint_auth_method: 'client_secret_basic',
      require_pkce: true,
    });
    // Name, description and scopes need no step-up; sending the same redirect URIs back is no change either.
    const plain = await call(rw, 'PATCH', `/${app.client_id}`, { name: 'Guarded v2', description: 'd', redirect_uris: ['https://app.example/cb'] });
    expect(plain.res.status).toBe(200);
    // With a recent two-factor sign-in the change goes through.
    const strong = await mfaToken(user, email);
    const changed = await call(strong, 'PATCH', `/${app.client_id}`, { redirect_uris: ['https://app.example/cb2'] });
    expect([changed.res.status, changed.body.redirect_uris]).toEqual([200, [{ type: 'equals', value: 'https://app.example/cb2' }]]);
  });

  it('validates input: 400 invalid_request with a description', async () => {
    const { rw } = await userWithTokens();
    const { body: app } = await call(rw, 'POST', '', { name: 'Valid', redirect_uris: ['https://app.example/cb'] });
    const bad: unknown[] = [
      {},
      { name: '' },
      { name: 'x', redirect_uris: ['http://evil.example/cb'] },
      { name: 'x', redirect_uris: [{ type: 'regex', value: '(' }] },
      { name: 'x', redirect_uris: [{ type: 'glob', value: 'https://a.example/' }] },
      { name: 'x', redirect_uris: ['https://app.example/cb'], oidc_fields: ['passwords'] },
      { name: 'x', redirect_uris: ['https://app.example/cb'], allowed_scopes: ['no-such-scope'] },
      { name: 'x', redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'client_secret_jwt' },
      { name: 'x', redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'private_key_jwt' },
      {
        name: 'x',
        redirect_uris: ['https://app.example/cb'],
        jwks: { keys: [{ kty: 'EC' }] },
        jwks_uri: 'https://app.example/jwks',
        token_endpoint_auth_method: 'private_key_jwt',
      },
      { name: 'x', redirect_uris: ['https://app.example/cb'], public: true, token_endpoint_auth_method: 'client_secret_basic' },
      { name: 'x', redirect_uris: ['https://app.example/cb'], is_verified: true },
      { name: 'x', redirect_uris: ['https://app.example/cb'], client_id: 'mine' },
      { name: 'x', redirect_uris: ['https://app.example/cb'], unknown: 1 },
      { name: 'x' },
      { name: 'x', redirect_uris: [] },
      // At most 5 Regex entries: each can cost tens of milliseconds on a crafted candidate.
      { name: 'x', redirect_uris: Array.from({ length: 6 }, (_, i) => ({ type: 'regex', value: `https://app\\.example/${i}` })) },
      { name: 'x', redirect_uris: ['https://app.example/cb'], jwks_uri: 'http://app.example/jwks', token_endpoint_auth_method: 'private_key_jwt' },
      { name: 'x', redirect_uris: ['https://app.example/cb'], backchannel_logout_uri: 'http://app.example/bcl' },
      { name: 'x', redirect_uris: ['https://app.example/cb'], allowed_resources: ['not a uri'] },
      { name: 'x', redirect_uris: ['https://app.example/cb'], public: true, require_pkce: false },
      { name: 'x', redirect_uris: ['https://app.example/cb'], userinfo_signed_response_alg: 'HS256' },
      { name: 'x', redirect_uris: ['https://app.example/cb'], userinfo_signed_response_alg: 42 },
      { name: 'x', redirect_uris: ['https://app.example/cb'], request_object_signing_alg: 'HS256' },
      { name: 'x', redirect_uris: ['https://app.example/cb'], authorization_signed_response_alg: 'none' },
      { name: 'x', redirect_uris: ['https://app.example/cb'], authorization_signed_response_alg: 'HS256' },
      { name: 'x', redirect_uris: ['https://app.example/cb'], request_uris: ['http://app.example/request.jwt'] },
      { name: 'x', redirect_uris: ['https://app.example/cb'], request_uris: ['https://app.example/' + 'r'.repeat(600)] },
      [],
    ];
    for (const body of bad) {
      const r = await call(rw, 'POST', '', body);
      expect([JSON.stringify(body), r.res.status, r.body.error]).toEqual([JSON.stringify(body), 400, 'invalid_request']);
      expect(r.body.error_description).toEqual(expect.any(String));
    }
    const verify = await call(rw, 'PATCH', `/${app.client_id}`, { is_verified: true });
    expect(verify.res.status).toBe(400);
    expect(verify.body.error_description).toMatch(/operators/);
    expect((await call(rw, 'PATCH', `/${app.client_id}`, { redirect_uris: ['https://x.example/#f'] })).res.status).toBe(400);
    expect((await findClient(api.deps.store, app.client_id))!.isVerified).toBe(false);
    // Request objects: the one algorithm allowed (none: unsigned only; null: any) and the request_uris Keyflow may fetch.
    const jar = await call(rw, 'PATCH', `/${app.client_id}`, { request_object_signing_alg: 'ES256', request_uris: ['https://app.example/request.jwt#hash'] });
    expect([jar.res.status, jar.body.request_object_signing_alg, jar.body.request_uris]).toEqual([200, 'ES256', ['https://app.example/request.jwt#hash']]);
    const cleared = await call(rw, 'PATCH', `/${app.client_id}`, { request_object_signing_alg: null, request_uris: [] });
    expect([cleared.res.status, cleared.body.request_object_signing_alg, cleared.body.request_uris]).toEqual([200, null, []]);
    // JWT authorization responses (JARM): the algorithm they are signed with; null, RS256 when signing.
    const jarm = await call(rw, 'PATCH', `/${app.client_id}`, { authorization_signed_response_alg: 'ML-DSA-65' });
    expect([jarm.res.status, jarm.body.authorization_signed_response_alg]).toEqual([200, 'ML-DSA-65']);
    expect((await findClient(api.deps.store, app.client_id))!.authorizationSignedResponseAlg).toBe('ML-DSA-65');
    const unsetJarm = await call(rw, 'PATCH', `/${app.client_id}`, { authorization_signed_response_alg: null });
    expect([unsetJarm.res.status, unsetJarm.body.authorization_signed_response_alg]).toEqual([200, null]);
  });

  it('shows only the user’s own apps: another user’s app is 404 for every operation', async () => {
    const alice = await userWithTokens();
    const bob = await userWithTokens();
    const { body: app } = await call(alice.rw, 'POST', '', { name: 'Alice app', redirect_uris: ['https://app.example/cb'] });
    expect((await call(bob.rw, 'GET')).body).toEqual({ apps: [] });
    for (const [method, path, body] of [
      ['GET', ''],
      ['PATCH', '', { name: 'stolen' }],
      ['DELETE', ''],
      ['POST', '/secret'],
    ] as const) {
      const r = await call(bob.rw, method, `/${app.client_id}${path}`, body);
      expect([method, path, r.res.status, r.body?.error]).toEqual([method, path, 404, 'not_found']);
    }
    expect((await call(bob.rw, 'GET', `/${newSecret()}`)).res.status).toBe(404);
    expect((await findClient(api.deps.store, app.client_id))!.name).toBe('Alice app');
  });

  it('needs apps:read to read and apps:write to change, and a valid token', async () => {
    const { rw, ro, wo } = await userWithTokens();
    const { body: app } = await call(rw, 'POST', '', { name: 'Scoped', redirect_uris: ['https://app.example/cb'] });
    for (const [method, path, body] of [
      ['POST', '', { name: 'x' }],
      ['PATCH', `/${app.client_id}`, { name: 'x' }],
      ['DELETE', `/${app.client_id}`],
      ['POST', `/${app.client_id}/secret`],
    ] as const) {
      const r = await call(ro, method, path, body);
      expect([method, path, r.res.status, r.body.error]).toEqual([method, path, 403, 'insufficient_scope']);
    }
    for (const path of ['', `/${app.client_id}`]) {
      const r = await call(wo, 'GET', path);
      expect([path, r.res.status, r.body.error]).toEqual([path, 403, 'insufficient_scope']);
    }
    expect((await call(null, 'GET')).res.status).toBe(401);
    expect((await call('garbage', 'GET')).res.status).toBe(401);
    expect((await call(ro, 'GET', `/${app.client_id}`)).res.status).toBe(200);
  });
});

describe('/account/apps page', () => {
  it('lists, creates (secret shown once), rotates and deletes apps, with CSRF on every form', async () => {
    const { email, user, rw } = await userWithTokens();
    const agent = new HttpUser(api.issuer);
    await agent.signIn(await agent.get('/login'), email, PASSWORD);
    const account = await (await agent.get('/account')).res.text();
    expect(account).toContain('href="/account/apps"');
    expect(account).toContain('href="/account/tokens"');
    let page = await (await agent.get('/account/apps')).res.text();
    const created = await agent.submit(page, '/account/apps', { name: 'Page app', redirect_uris: 'https://page.example/cb\nhttps://page.example/cb2' });
    expect(created.res.status).toBe(200);
    const shown = await created.res.text();
    const clientId = /data-client-id>([^<]+)</.exec(shown)![1]!;
    const secret = /data-client-secret>([^<]+)</.exec(shown)![1]!;
    expect(await secretVerdict(clientId, secret)).toBe('invalid_grant');
    const stored = (await findClient(api.deps.store, clientId))!;
    expect(stored).toMatchObject({
      ownerUserId: user._id,
      name: 'Page app',
      public: false,
      redirectUris: [
        { type: 'equals', value: 'https://page.example/cb' },
        { type: 'equals', value: 'https://page.example/cb2' },
      ],
    });
    // The same app through the API.
    expect((await call(rw, 'GET')).body.apps.map((a: Json) => a.client_id)).toEqual([clientId]);

    // Edit: every shown field changes, the rest (secret, owner) stays; bad input is refused.
    const edit = await (await agent.get(`/account/apps/${clientId}/edit`)).res.text();
    expect(edit).toContain('value="Page app"');
    const badEdit = await agent.submit(edit, `/account/apps/${clientId}/edit`, { name: 'Page app', redirect_uris: 'http://not-loopback.example/cb' });
    expect(badEdit.res.status).toBe(400);
    expect(await badEdit.res.text()).toContain('must use https');
    await agent.submit(edit, `/account/apps/${clientId}/edit`, {
      name: 'Renamed app',
      description: 'edited in the browser',
      redirect_uris: 'https://page.example/new\nwildcard: https://*.page.example/cb',
      post_logout_redirect_uris: 'https://page.example/bye',
      backchannel_logout_uri: 'https://page.example/bcl',
    });
    expect(await findClient(api.deps.store, clientId)).toMatchObject({
      name: 'Renamed app',
      description: 'edited in the browser',
      redirectUris: [
        { type: 'equals', value: 'https://page.example/new' },
        { type: 'wildcard', value: 'https://*.page.example/cb' },
      ],
      postLogoutRedirectUris: ['https://page.example/bye'],
      backchannelLogoutUri: 'https://page.example/bcl',
      ownerUserId: user._id,
      secretHash: stored.secretHash,
    });
    const stranger = await userWithTokens();
    const strangerAgent = new HttpUser(api.issuer);
    await strangerAgent.signIn(await strangerAgent.get('/login'), stranger.email, PASSWORD);
    expect((await strangerAgent.get(`/account/apps/${clientId}/edit`)).res.status).toBe(404);

    page = await (await agent.get('/account/apps')).res.text();
    expect(page).toContain('Renamed app');
    expect(page).not.toContain(secret);
    const rotated = await agent.submit(page, `/account/apps/${clientId}/secret`, {});
    const newSecretValue = /data-client-secret>([^<]+)</.exec(await rotated.res.text())![1]!;
    expect(newSecretValue).not.toBe(secret);
    await eventually(async () => expect(await secretVerdict(clientId, secret)).toBe('invalid_client'), 5_000);

    // The signatures: the form says what ML-DSA-65 means; the default app is told so after it is made, one made RS256 is not.
    page = await (await agent.get('/account/apps')).res.text();
    expect(page).toMatch(/<label for="app-id-alg">ID token signature<\/label>/);
    expect(page).toContain('Spring Security, Keycloak, PyJWT, authlib and go-oidc need RS256');
    expect(shown).toMatch(/data-note>ID tokens of this app are signed with ML-DSA-65/);
    const classic = await agent.submit(page, '/account/apps', { name: 'Classic', redirect_uris: 'https://page.example/cb', id_token_alg: 'RS256' });
    const classicPage = await classic.res.text();
    expect(classicPage).not.toContain('data-note');
    const classicId = /data-client-id>([^<]+)</.exec(classicPage)![1]!;
    expect(await findClient(api.deps.store, classicId)).toMatchObject({ idTokenSignedResponseAlg: 'RS256', accessTokenSignedResponseAlg: null });
    const wrongAlg = await agent.submit(page, '/account/apps', { name: 'Wrong', redirect_uris: 'https://page.example/cb', id_token_alg: 'HS256' });
    expect([wrongAlg.res.status, (await wrongAlg.res.text()).includes('id_token_signed_response_alg must be one of')]).toEqual([400, true]);

    // Public app: no secret; bad redirect URI: error on the page.
    const pub = await agent.submit(page, '/account/apps', { name: 'Public page app', redirect_uris: 'https://page.example/cb', public: '1' });
    expect(await pub.res.text()).toContain('A public client has no secret');
    const bad = await agent.submit(page, '/account/apps', { name: 'Bad', redirect_uris: 'http://evil.example/cb' });
    expect(bad.res.status).toBe(400);

    // CSRF on every form.
    for (const path of ['/account/apps', `/account/apps/${clientId}/secret`, `/account/apps/${clientId}/delete`]) {
      const r = await agent.request(path, {
        method: 'POST',
        body: new URLSearchParams({ csrf: 'forged', name: 'x' }),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect([path, r.status]).toEqual([path, 400]);
    }
    expect(await findClient(api.deps.store, clientId)).not.toBeNull();

    // Another user cannot delete it from their page.
    const other = await userWithTokens();
    const otherAgent = new HttpUser(api.issuer);
    await otherAgent.signIn(await otherAgent.get('/login'), other.email, PASSWORD);
    const otherPage = await (await otherAgent.get('/account/apps')).res.text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(otherPage)![1]!;
    const foreign = await otherAgent.request(`/account/apps/${clientId}/delete`, {
      method: 'POST',
      body: new URLSearchParams({ csrf }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(foreign.status).toBe(404);

    page = await (await agent.get('/account/apps')).res.text();
    const deleted = await agent.submit(page, `/account/apps/${clientId}/delete`, {});
    expect(deleted.res.status).toBe(200);
    expect(await findClient(api.deps.store, clientId)).toBeNull();
  });

  it('asks for a recent sign-in before an app’s redirect URIs, logout URIs or secret change, and comes back to the page', async () => {
    const { email, user } = await userWithTokens();
    const agent = new HttpUser(api.issuer);
    await agent.signIn(await agent.get('/login'), email, PASSWORD);
    const page = await (await agent.get('/account/apps')).res.text();
    const created = await (await agent.submit(page, '/account/apps', { name: 'Aging app', redirect_uris: 'https://aging.example/cb' })).res.text();
    const clientId = /data-client-id>([^<]+)</.exec(created)![1]!;
    const before = (await findClient(api.deps.store, clientId))!;
    const edit = await (await agent.get(`/account/apps/${clientId}/edit`)).res.text();

    // The sign-in is now older than REAUTH_MAX_AGE_SECONDS (15 minutes).
    await api.deps.store.sessions.updateMany({ userId: user._id }, { $set: { authTime: new Date(Date.now() - 16 * 60_000) } });
    const reauth = `/login?reauth=1&next=${encodeURIComponent(`/account/apps/${clientId}/edit`)}`;
    const editAgain = await agent.request(`/account/apps/${clientId}/edit`);
    expect([editAgain.status, editAgain.headers.get('location')]).toEqual([303, reauth]);
    const changed = await agent.submit(edit, `/account/apps/${clientId}/edit`, { name: 'Aging app', redirect_uris: 'https://attacker.example/cb' });
    expect(changed.url).toBe(`${api.issuer}${reauth}`);
    const listed = await (await agent.get('/account/apps')).res.text();
    const rotate = await agent.submit(listed, `/account/apps/${clientId}/secret`, {});
    expect(rotate.url).toBe(`${api.issuer}/login?reauth=1&next=${encodeURIComponent('/account/apps')}`);
    expect(await findClient(api.deps.store, clientId)).toMatchObject({ redirectUris: before.redirectUris, secretHash: before.secretHash });
    // A name is not a credential: no sign-in needed.
    await agent.submit(edit, `/account/apps/${clientId}/edit`, { name: 'Renamed aging app', redirect_uris: 'https://aging.example/cb' });
    expect((await findClient(api.deps.store, clientId))!.name).toBe('Renamed aging app');

    // Signing in again returns to the edit page, where the change now goes through.
    const back = await agent.signIn(await agent.get(reauth), email, PASSWORD);
    expect(back.url).toBe(`${api.issuer}/account/apps/${clientId}/edit`);
    await agent.submit(await back.res.text(), `/account/apps/${clientId}/edit`, { name: 'Renamed aging app', redirect_uris: 'https://aging.example/new' });
    expect((await findClient(api.deps.store, clientId))!.redirectUris).toEqual([{ type: 'equals', value: 'https://aging.example/new' }]);
  });
});
