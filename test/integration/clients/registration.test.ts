// Dynamic client registration (RFC 7591) and management (RFC 7592): the
// initial access token, field-by-field metadata validation, the client
// information document, a registered client running the code flow, and
// GET / PUT / DELETE at the registration_client_uri with its token.
import { s256Challenge } from '../../../lib/model/pkce.js';
import { newSecret } from '../../../lib/security/secrets.js';
import { createClient, findClient } from '../../../lib/store/clients.js';
import { createPersonalAccessToken } from '../../../lib/store/personal-access-tokens.js';
import { useTestApi, eventually, startTestApi, type Json } from '../../support/harness.js';
import { basicAuthEncoded } from '../../support/http.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';

const PASSWORD = 'registration test password';
const REDIRECT = 'https://registered-rp.example/cb';
const api = useTestApi();

const USER = { prefix: 'reg', password: PASSWORD, name: 'Reg User' };

async function pat(userId: string, scope: string[]) {
  return (await createPersonalAccessToken(api.deps.store, userId, { name: 't', scope, expiresInDays: 1 })).token;
}

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

async function register(body: unknown, token?: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${api.issuer}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: JSON.stringify(body),
  });
  return { res, body: (await res.json()) as Json };
}

async function tokenRequest(body: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${api.issuer}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(body),
  });
  return { res, body: (await res.json()) as Json };
}

/**
 * authorize → sign-in → consent → code → token for a client; returns the token
 * response. `pkce: false` sends no code_challenge (nor a verifier).
 */
async function codeFlow(
  clientId: string,
  clientSecret: string | null,
  email: string,
  scope: string,
  agent = new HttpUser(api.issuer),
  { pkce = true, on = api.issuer }: { pkce?: boolean; on?: string } = {},
) {
  const verifier = newSecret() + 'xyz';
  const url = new URL('/api/oauth/authorize', on);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope,
    state: 's',
    ...(pkce ? { code_challenge: s256Challenge(verifier), code_challenge_method: 'S256' } : {}),
  })) {
    url.searchParams.set(k, v);
  }
  let step = await agent.get(url.href);
  if (step.url.includes('/login')) step = await agent.signIn(step, email, PASSWORD);
  if (step.url.includes('/consent')) step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
  if (!step.external) throw new Error(`flow stopped at ${step.url}: ${(await step.res.text()).slice(0, 300)}`);
  const code = step.external.searchParams.get('code');
  if (!code) throw new Error(`no code: ${step.external.href}`);
  const body: Record<string, string> = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, ...(pkce ? { code_verifier: verifier } : {}) };
  if (!clientSecret) body.client_id = clientId;
  const res = await fetch(`${on}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(clientSecret ? { authorization: basicAuthEncoded(clientId, clientSecret) } : {}) },
    body: new URLSearchParams(body),
  });
  return { res, body: (await res.json()) as Json };
}

/** The authorization endpoint's answer to a request without PKCE, before any sign-in: the redirect's query. */
async function authorizeWithoutPkce(clientId: string, on = api.issuer): Promise<URLSearchParams> {
  const query = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, scope: 'openid', state: 's' });
  const res = await fetch(`${on}/api/oauth/authorize?${query}`, { redirect: 'manual' });
  const location = new URL(res.headers.get('location') ?? '/', on);
  return location.origin === new URL(REDIRECT).origin ? location.searchParams : new URLSearchParams({ went: location.pathname });
}

const manage = (uri: string, token: string | null, method = 'GET', body?: unknown) =>
  fetch(uri, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });

describe('dynamic client registration', () => {
  it('registers a confidential client and returns the client information document; the client runs the code flow', async () => {
    const { email, user } = await newUser(api.deps, USER);
    const token = await pat(user._id, ['apps:write']);
    const { res, body } = await register(
      {
        client_name: 'Registered RP',
        redirect_uris: [REDIRECT],
        scope: 'openid profile',
        token_endpoint_auth_method: 'client_secret_basic',
        id_token_signed_response_alg: 'RS256',
        logo_uri: 'https://registered-rp.example/logo.png',
        unknown_field: 'ignored',
      },
      token,
    );
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(body).toEqual({
      client_id: expect.any(String),
      client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      client_id_issued_at: expect.any(Number),
      client_secret_expires_at: 0,
      client_name: 'Registered RP',
      redirect_uris: [REDIRECT],
      scope: 'openid profile',
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      id_token_signed_response_alg: 'RS256',
      require_pkce: true,
      logo_uri: 'https://registered-rp.example/logo.png',
      registration_access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      registration_client_uri: `${api.issuer}/api/oauth/register/${body.client_id}`,
    });
    const stored = (await findClient(api.deps.store, body.client_id))!;
    expect(stored).toMatchObject({ ownerUserId: user._id, isVerified: false, public: false });
    expect(JSON.stringify(stored)).not.toContain(body.registration_access_token);
    expect(JSON.stringify(stored)).not.toContain(body.client_secret);

    const tokens = await codeFlow(body.client_id, body.client_secret, email, 'openid profile');
    expect(tokens.res.status).toBe(200);
    expect(tokens.body).toMatchObject({ access_token: expect.any(String), id_token: expect.any(String), scope: 'openid profile' });
  });

  it('registers a public client (no secret) and accepts an OAuth access token carrying apps:write', async () => {
    const { email, user } = await newUser(api.deps, USER);
    // An OAuth access token with apps:write, from a client allowed that scope.
    const { client, clientSecret } = await createClient(api.deps.store, {
      name: 'Dev portal',
      redirectUris: [{ type: 'equals', value: REDIRECT }],
      allowedScopes: ['openid', 'apps:write'],
      idTokenSignedResponseAlg: 'RS256',
    });
    const agent = new HttpUser(api.issuer);
    const at = await codeFlow(client._id, clientSecret, email, 'openid apps:write', agent);
    expect(at.res.status).toBe(200);
    const { res, body } = await register(
      { client_name: 'SPA', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] },
      at.body.access_token,
    );
    expect(res.status).toBe(201);
    expect(body.client_secret).toBeUndefined();
    expect(body.client_secret_expires_at).toBeUndefined();
    expect(body.grant_types).toEqual(['authorization_code', 'refresh_token']);
    expect((await findClient(api.deps.store, body.client_id))!.ownerUserId).toBe(user._id);
    const flow = await codeFlow(body.client_id, null, email, 'openid', agent);
    expect(flow.res.status).toBe(200);
    // The browser session alone (cookie, no Bearer token) is not an initial access token.
    const cookieOnly = await agent.request('/api/oauth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'x', redirect_uris: [REDIRECT] }),
    });
    expect(cookieOnly.status).toBe(401);
  });

  it('refuses requests without a valid initial access token carrying apps:write', async () => {
    const { user } = await newUser(api.deps, USER);
    const meta = { client_name: 'x', redirect_uris: [REDIRECT] };
    const none = await register(meta);
    expect(none.res.status).toBe(401);
    expect(none.res.headers.get('www-authenticate')).toMatch(/^Bearer /);
    const invalid = await register(meta, 'not-a-token');
    expect(invalid.res.status).toBe(401);
    expect(invalid.body.error).toBe('invalid_token');
    const revokedLike = await register(meta, 'kfpat_' + 'x'.repeat(43));
    expect(revokedLike.res.status).toBe(401);
    const readOnly = await register(meta, await pat(user._id, ['apps:read']));
    expect(readOnly.res.status).toBe(403);
    expect(readOnly.body.error).toBe('insufficient_scope');
  });

  it('validates the metadata field by field', async () => {
    const { user } = await newUser(api.deps, USER);
    const token = await pat(user._id, ['apps:write']);
    const jwks = { keys: [{ kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' }] };
    const cases: Array<[unknown, string]> = [
      [{ client_name: 'x', redirect_uris: ['http://evil.example/cb'] }, 'invalid_redirect_uri'],
      [{ client_name: 'x', redirect_uris: ['https://rp.example/cb#frag'] }, 'invalid_redirect_uri'],
      [{ client_name: 'x', redirect_uris: ['not a uri'] }, 'invalid_redirect_uri'],
      [{ client_name: 'x', redirect_uris: [42] }, 'invalid_redirect_uri'],
      // Redirect URIs are pre-registered: none given is refused, nothing is learned later (for the redirect-based grants).
      [{ client_name: 'x' }, 'invalid_redirect_uri'],
      [{ client_name: 'x', redirect_uris: [] }, 'invalid_redirect_uri'],
      [{ client_name: 'x', grant_types: ['authorization_code', DEVICE_GRANT], response_types: ['code'] }, 'invalid_redirect_uri'],
      [{ client_name: 'x', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_jwt' }, 'invalid_client_metadata'],
      [
        { client_name: 'x', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'private_key_jwt', jwks, jwks_uri: 'https://rp.example/jwks' },
        'invalid_client_metadata',
      ],
      [{ client_name: 'x', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'private_key_jwt' }, 'invalid_client_metadata'],
      [{ client_name: 'x', redirect_uris: [REDIRECT], grant_types: ['implicit'] }, 'invalid_client_metadata'],
      [{ client_name: 'x', redirect_uris: [REDIRECT], grant_types: ['password'] }, 'invalid_client_metadata'],
      [{ client_name: 'x', redirect_uris: [REDIRECT], response_types: ['token'] }, 'invalid_client_metadata'],
      [{ client_name: 'x', redirect_uris: [REDIRECT], scope: 'openid no-such-scope' }, 'invalid_client_metadata'],
      [{ client_name: 'x', redirect_uris: [REDIRECT], id_token_signed_response_alg: 'none' }, 'invalid_client_metadata'],
      [{ client_name: 'x', redirect_uris: [REDIRECT], backchannel_logout_uri: 'ftp://rp.example/logout' }, 'invalid_client_metadata'],
      [{ client_name: 'x', redirect_uris: [REDIRECT], client_uri: 'javascript:alert(1)' }, 'invalid_client_metadata'],
      [{ client_name: 'x', redirect_uris: [REDIRECT], request_object_signing_alg: 'HS256' }, 'invalid_client_metadata'],
      [{ client_name: 'x', redirect_uris: [REDIRECT], request_uris: ['http://rp.example/request.jwt'] }, 'invalid_client_metadata'],
      [{ client_name: 'x', redirect_uris: [REDIRECT], request_uris: 'https://rp.example/request.jwt' }, 'invalid_client_metadata'],
      [{ redirect_uris: [REDIRECT] }, 'invalid_client_metadata'],
      [{ client_name: '   ', redirect_uris: [REDIRECT] }, 'invalid_client_metadata'],
      [['not', 'an', 'object'], 'invalid_client_metadata'],
    ];
    for (const [meta, error] of cases) {
      const { res, body } = await register(meta, token);
      expect([JSON.stringify(meta), res.status, body.error]).toEqual([JSON.stringify(meta), 400, error]);
      expect(body.error_description).toEqual(expect.any(String));
    }
    // RFC 7591 §2: redirect_uris is for the redirect-based flows; a device-only client registers none.
    const device = await register({ client_name: 'tv', grant_types: [DEVICE_GRANT], token_endpoint_auth_method: 'none' }, token);
    expect([device.res.status, device.body.grant_types, device.body.redirect_uris, device.body.response_types]).toEqual([201, [DEVICE_GRANT], [], []]);
    // private_key_jwt with inline jwks alone is fine, and gets no secret.
    const ok = await register({ client_name: 'jwt', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'private_key_jwt', jwks }, token);
    expect(ok.res.status).toBe(201);
    expect(ok.body.client_secret).toBeUndefined();
    expect(ok.body.jwks).toEqual(jwks);
    // Request objects (OIDC Dynamic Registration §2): the algorithm and the request_uris, in the client information document.
    const jar = await register(
      { client_name: 'jar', redirect_uris: [REDIRECT], jwks, request_object_signing_alg: 'ES256', request_uris: ['https://rp.example/request.jwt#hash'] },
      token,
    );
    expect([jar.res.status, jar.body.request_object_signing_alg, jar.body.request_uris]).toEqual([201, 'ES256', ['https://rp.example/request.jwt#hash']]);
    const unsignedOnly = await register({ client_name: 'none', redirect_uris: [REDIRECT], request_object_signing_alg: 'none' }, token);
    expect([unsignedOnly.res.status, unsignedOnly.body.request_object_signing_alg, unsignedOnly.body.request_uris]).toEqual([201, 'none', undefined]);
    // Not JSON.
    const form = await fetch(`${api.issuer}/api/oauth/register`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'client_name=x',
    });
    expect(form.status).toBe(400);
  });
});

describe('client registration management', () => {
  async function registered() {
    const { email, user } = await newUser(api.deps, USER);
    const { body } = await register({ client_name: 'Managed', redirect_uris: [REDIRECT], scope: 'openid' }, await pat(user._id, ['apps:write']));
    return { email, user, doc: body };
  }

  it('reads, updates and deletes the client with its registration access token', async () => {
    const { email, doc } = await registered();
    const uri = doc.registration_client_uri as string;
    // The owner adds what RFC 7591 cannot express (through the app API, which asks a
    // two-factor sign-in for redirect URIs; written directly here); a PUT keeps it.
    await api.deps.store.clients.updateOne(
      { _id: doc.client_id },
      {
        $set: {
          description: 'kept',
          oidcFields: ['apps'],
          redirectUris: [
            { type: 'equals', value: REDIRECT },
            { type: 'wildcard', value: 'https://*.registered-rp.example/cb' },
          ],
        },
      },
    );
    const read = await manage(uri, doc.registration_access_token);
    expect(read.status).toBe(200);
    const readBody = (await read.json()) as Json;
    expect(readBody).toMatchObject({ client_id: doc.client_id, client_name: 'Managed', redirect_uris: [REDIRECT], registration_client_uri: uri });
    expect(readBody.client_secret).toBeUndefined();
    expect(readBody.registration_access_token).toBeUndefined();

    // PUT replaces the metadata; sending back the read fields (and the unchanged secret) is allowed.
    const put = await manage(uri, doc.registration_access_token, 'PUT', {
      ...readBody,
      client_secret: doc.client_secret,
      client_name: 'Managed v2',
      redirect_uris: [REDIRECT, 'https://registered-rp.example/cb2'],
      scope: 'openid profile',
    });
    expect(put.status).toBe(200);
    const putBody = (await put.json()) as Json;
    expect(putBody).toMatchObject({
      client_id: doc.client_id,
      client_name: 'Managed v2',
      redirect_uris: [REDIRECT, 'https://registered-rp.example/cb2'],
      scope: 'openid profile',
    });
    expect(putBody.client_secret).toBeUndefined();
    expect(await findClient(api.deps.store, doc.client_id)).toMatchObject({
      description: 'kept',
      oidcFields: ['apps'],
      redirectUris: [
        { type: 'equals', value: REDIRECT },
        { type: 'equals', value: 'https://registered-rp.example/cb2' },
        { type: 'wildcard', value: 'https://*.registered-rp.example/cb' },
      ],
    });
    // The secret did not change: the client still authenticates with it.
    expect((await codeFlow(doc.client_id, doc.client_secret, email, 'openid profile')).res.status).toBe(200);

    // client_id must match; the secret cannot be changed; metadata is validated as at registration.
    expect((await manage(uri, doc.registration_access_token, 'PUT', { client_name: 'x', redirect_uris: [REDIRECT] })).status).toBe(400);
    expect((await manage(uri, doc.registration_access_token, 'PUT', { client_id: 'other', client_name: 'x', redirect_uris: [REDIRECT] })).status).toBe(400);
    const secretChange = await manage(uri, doc.registration_access_token, 'PUT', {
      client_id: doc.client_id,
      client_secret: 'mine',
      client_name: 'x',
      redirect_uris: [REDIRECT],
    });
    expect(secretChange.status).toBe(400);
    expect(((await secretChange.json()) as Json).error).toBe('invalid_client_metadata');
    const badUri = await manage(uri, doc.registration_access_token, 'PUT', {
      client_id: doc.client_id,
      client_name: 'x',
      redirect_uris: ['http://x.example/'],
    });
    expect(((await badUri.json()) as Json).error).toBe('invalid_redirect_uri');
    const emptied = await manage(uri, doc.registration_access_token, 'PUT', { client_id: doc.client_id, client_name: 'x', redirect_uris: [] });
    expect([emptied.status, ((await emptied.json()) as Json).error]).toEqual([400, 'invalid_redirect_uri']);

    const del = await manage(uri, doc.registration_access_token, 'DELETE');
    expect(del.status).toBe(204);
    expect(await findClient(api.deps.store, doc.client_id)).toBeNull();
    expect((await manage(uri, doc.registration_access_token)).status).toBe(401);
    // The client is gone at the token endpoint too (after the 2 s client cache).
    await eventually(async () => {
      const t = await tokenRequest(
        { grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT },
        { authorization: basicAuthEncoded(doc.client_id, doc.client_secret) },
      );
      expect(t.body.error).toBe('invalid_client');
    }, 5_000);
  });

  it('answers 401 invalid_token to a wrong or missing token and for an unknown client, revealing nothing', async () => {
    const { doc } = await registered();
    const other = await registered();
    const uri = doc.registration_client_uri as string;
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const body = method === 'PUT' ? { client_id: doc.client_id, client_name: 'hijack', redirect_uris: [REDIRECT] } : undefined;
      const wrong = await manage(uri, newSecret(), method, body);
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(((await wrong.json()) as Json).error).toBe('invalid_token');
      // Another client's registration token does not work here.
      expect((await manage(uri, other.doc.registration_access_token, method, body)).status).toBe(401);
      const missing = await manage(uri, null, method, body);
      expect(missing.status).toBe(401);
      expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    }
    const unknown = await manage(`${api.issuer}/api/oauth/register/${newSecret()}`, doc.registration_access_token);
    expect(unknown.status).toBe(401);
    expect(((await unknown.json()) as Json).error).toBe('invalid_token');
    // An operator-made client (no registration token) cannot be managed either.
    const { client } = await createClient(api.deps.store, { name: 'cli', redirectUris: [{ type: 'equals', value: REDIRECT }] });
    expect((await manage(`${api.issuer}/api/oauth/register/${client._id}`, doc.registration_access_token)).status).toBe(401);
    // Nothing changed.
    expect((await findClient(api.deps.store, doc.client_id))!.name).toBe('Managed');
  });

  it('is advertised in discovery', async () => {
    const doc = (await (await fetch(`${api.issuer}/.well-known/openid-configuration`)).json()) as Json;
    expect(doc.registration_endpoint).toBe(`${api.issuer}/api/oauth/register`);
  });
});

describe('PKCE of registered clients (require_pkce, REGISTRATION_REQUIRE_PKCE)', () => {
  const meta = { client_name: 'PKCE RP', redirect_uris: [REDIRECT], scope: 'openid' };

  it('a confidential client registered with require_pkce: false runs the code flow without PKCE', async () => {
    const { email, user } = await newUser(api.deps, USER);
    const { res, body } = await register({ ...meta, require_pkce: false }, await pat(user._id, ['apps:write']));
    expect(res.status).toBe(201);
    expect(body.require_pkce).toBe(false);
    expect((await findClient(api.deps.store, body.client_id))!.requirePkce).toBe(false);
    const tokens = await codeFlow(body.client_id, body.client_secret, email, 'openid', new HttpUser(api.issuer), { pkce: false });
    expect(tokens.res.status).toBe(200);
    expect(tokens.body.id_token).toEqual(expect.any(String));
    // It is read back, and a PUT that leaves it out goes back to the default (required).
    const read = (await (await manage(body.registration_client_uri, body.registration_access_token)).json()) as Json;
    expect(read.require_pkce).toBe(false);
    const put = await manage(body.registration_client_uri, body.registration_access_token, 'PUT', { ...meta, client_id: body.client_id });
    expect(((await put.json()) as Json).require_pkce).toBe(true);
  });

  it('by default (REGISTRATION_REQUIRE_PKCE=true) a client that does not say must use PKCE', async () => {
    const { user } = await newUser(api.deps, USER);
    const { body } = await register(meta, await pat(user._id, ['apps:write']));
    expect(body.require_pkce).toBe(true);
    const answer = await authorizeWithoutPkce(body.client_id);
    expect([answer.get('error'), answer.get('error_description')]).toEqual(['invalid_request', expect.stringMatching(/PKCE/)]);
  });

  it('with REGISTRATION_REQUIRE_PKCE=false a confidential client that does not say may leave PKCE out; a public one may not', async () => {
    const lax = await startTestApi({ REGISTRATION_REQUIRE_PKCE: 'false' });
    try {
      const on = lax.deps.config.issuer;
      const { email, user } = await newUser(lax.deps, USER);
      const token = await pat(user._id, ['apps:write']);
      const post = async (body: unknown) => {
        const res = await fetch(`${on}/api/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as Json };
      };
      const confidential = await post(meta);
      expect([confidential.status, confidential.body.require_pkce]).toEqual([201, false]);
      const tokens = await codeFlow(confidential.body.client_id, confidential.body.client_secret, email, 'openid', new HttpUser(on), { pkce: false, on });
      expect(tokens.res.status).toBe(200);
      // A client may still ask for PKCE.
      expect((await post({ ...meta, require_pkce: true })).body.require_pkce).toBe(true);
      // Public clients always use PKCE.
      const spa = await post({ ...meta, token_endpoint_auth_method: 'none' });
      expect([spa.status, spa.body.require_pkce]).toEqual([201, true]);
      expect((await authorizeWithoutPkce(spa.body.client_id, on)).get('error')).toBe('invalid_request');
    } finally {
      await lax.stop();
    }
  });

  it('refuses require_pkce: false for a public client, and a require_pkce that is not a boolean', async () => {
    const { user } = await newUser(api.deps, USER);
    const token = await pat(user._id, ['apps:write']);
    for (const bad of [
      { ...meta, token_endpoint_auth_method: 'none', require_pkce: false },
      { ...meta, require_pkce: 'false' },
    ]) {
      const { res, body } = await register(bad, token);
      expect([JSON.stringify(bad), res.status, body.error]).toEqual([JSON.stringify(bad), 400, 'invalid_client_metadata']);
    }
  });
});

describe('the scopes of a client registered without scope', () => {
  it('are the OpenID Connect scopes; a flow asking for offline_access, address and phone gets them', async () => {
    const { email, user } = await newUser(api.deps, USER);
    const token = await pat(user._id, ['apps:write']);
    const { res, body } = await register({ client_name: 'OIDC RP', redirect_uris: [REDIRECT] }, token);
    expect(res.status).toBe(201);
    expect(body.scope).toBe('openid profile email address phone offline_access');
    const tokens = await codeFlow(body.client_id, body.client_secret, email, 'openid offline_access address phone');
    expect(tokens.res.status).toBe(200);
    expect(tokens.body).toMatchObject({ scope: 'openid offline_access address phone', refresh_token: expect.any(String) });
    // A client that names its scopes gets those alone.
    const named = await register({ client_name: 'Narrow RP', redirect_uris: [REDIRECT], scope: 'openid' }, token);
    expect(named.body.scope).toBe('openid');
    // A PUT without scope gets the default again.
    const put = await manage(named.body.registration_client_uri, named.body.registration_access_token, 'PUT', {
      client_id: named.body.client_id,
      client_name: 'Narrow RP',
      redirect_uris: [REDIRECT],
    });
    expect(((await put.json()) as Json).scope).toBe('openid profile email address phone offline_access');
  });
});

describe('policy_uri, tos_uri and logo_uri', () => {
  it('are stored and returned, and replaced by a PUT', async () => {
    const { user } = await newUser(api.deps, USER);
    const links = {
      client_uri: 'https://links-rp.example/',
      logo_uri: 'https://cdn.links-rp.example:8443/logo.png?v=2',
      policy_uri: 'https://links-rp.example/privacy',
      tos_uri: 'http://links-rp.example/terms',
    };
    const { res, body } = await register({ client_name: 'Links RP', redirect_uris: [REDIRECT], ...links }, await pat(user._id, ['apps:write']));
    expect(res.status).toBe(201);
    expect(body).toMatchObject(links);
    expect(await findClient(api.deps.store, body.client_id)).toMatchObject({
      clientUri: links.client_uri,
      logoUri: links.logo_uri,
      policyUri: links.policy_uri,
      tosUri: links.tos_uri,
    });
    const read = (await (await manage(body.registration_client_uri, body.registration_access_token)).json()) as Json;
    expect(read).toMatchObject(links);
    const put = await manage(body.registration_client_uri, body.registration_access_token, 'PUT', {
      client_id: body.client_id,
      client_name: 'Links RP',
      redirect_uris: [REDIRECT],
      policy_uri: 'https://links-rp.example/privacy-v2',
    });
    const putBody = (await put.json()) as Json;
    expect(putBody.policy_uri).toBe('https://links-rp.example/privacy-v2');
    expect([putBody.tos_uri, putBody.logo_uri, putBody.client_uri]).toEqual([undefined, undefined, undefined]);
  });

  it('are refused when they are not absolute http(s) URIs without fragment; a logo only over https', async () => {
    const { user } = await newUser(api.deps, USER);
    const token = await pat(user._id, ['apps:write']);
    const base = { client_name: 'x', redirect_uris: [REDIRECT] };
    for (const bad of [
      { policy_uri: 'javascript:alert(1)' },
      { policy_uri: 'https://rp.example/privacy#top' },
      { policy_uri: 'not a uri' },
      { policy_uri: 42 },
      { tos_uri: 'ftp://rp.example/terms' },
      { tos_uri: 'data:text/html,<b>terms</b>' },
      { logo_uri: 'http://rp.example/logo.png' },
      { logo_uri: 'https://user:pass@rp.example/logo.png' },
      { logo_uri: 'https://rp.example/logo.png#x' },
      { logo_uri: 'https://[::1]/logo.png' },
      { logo_uri: 'data:image/png;base64,AAAA' },
    ]) {
      const { res, body } = await register({ ...base, ...bad }, token);
      expect([JSON.stringify(bad), res.status, body.error]).toEqual([JSON.stringify(bad), 400, 'invalid_client_metadata']);
      expect(body.error_description).toMatch(Object.keys(bad)[0]!);
    }
  });
});
