import { createRemoteJWKSet, jwtVerify } from 'jose';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { createUser } from '../../../lib/store/users.js';
import { useTestApi } from '../../support/harness.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import type { Json } from '../../support/harness.js';

const api = useTestApi();

const get = (path: string, init?: RequestInit) => fetch(`${api.url}${path}`, init);

describe('discovery documents', () => {
  it.each(['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server'])('%s names the issuer and JWKS', async (path) => {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const doc = (await res.json()) as Json;
    expect(doc.issuer).toBe(api.deps.config.issuer);
    expect(doc.jwks_uri).toBe(`${api.deps.config.issuer}/.well-known/jwks.json`);
  });

  it('advertises exactly the endpoints and capabilities implemented', async () => {
    const doc = (await (await get('/.well-known/openid-configuration')).json()) as Json;
    const issuer = api.deps.config.issuer;
    expect(doc).toMatchObject({
      authorization_endpoint: `${issuer}/api/oauth/authorize`,
      token_endpoint: `${issuer}/api/oauth/token`,
      userinfo_endpoint: `${issuer}/api/oauth/userinfo`,
      response_types_supported: ['code', 'id_token', 'id_token token'],
      response_modes_supported: ['query', 'fragment', 'form_post', 'jwt', 'query.jwt', 'fragment.jwt', 'form_post.jwt'],
      authorization_signing_alg_values_supported: ['ML-DSA-65', 'RS256', 'PS256', 'ES256'],
      grant_types_supported: [
        'authorization_code',
        'refresh_token',
        'urn:ietf:params:oauth:grant-type:device_code',
        'urn:ietf:params:oauth:grant-type:token-exchange',
        'client_credentials',
        'implicit',
      ],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ML-DSA-65', 'RS256', 'PS256', 'ES256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'],
      token_endpoint_auth_signing_alg_values_supported: ['RS256', 'PS256', 'ES256', 'EdDSA'],
      dpop_signing_alg_values_supported: ['RS256', 'PS256', 'ES256', 'EdDSA'],
      code_challenge_methods_supported: ['S256'],
      prompt_values_supported: ['none', 'login', 'consent'],
      acr_values_supported: ['pwd', 'mfa'],
      authorization_response_iss_parameter_supported: true,
      request_parameter_supported: true,
      request_uri_parameter_supported: true,
      require_request_uri_registration: true,
      request_object_signing_alg_values_supported: ['RS256', 'PS256', 'ES256', 'EdDSA', 'none'],
      introspection_endpoint: `${issuer}/api/oauth/introspect`,
      revocation_endpoint: `${issuer}/api/oauth/revoke`,
      device_authorization_endpoint: `${issuer}/api/oauth/device_authorization`,
      pushed_authorization_request_endpoint: `${issuer}/api/oauth/par`,
      require_pushed_authorization_requests: false,
      end_session_endpoint: `${issuer}/api/oauth/end_session`,
      backchannel_logout_supported: true,
      backchannel_logout_session_supported: true,
    });
    // Every advertised endpoint exists (GET on the token endpoint: 405, not 404).
    for (const key of [
      'authorization_endpoint',
      'token_endpoint',
      'userinfo_endpoint',
      'jwks_uri',
      'introspection_endpoint',
      'revocation_endpoint',
      'device_authorization_endpoint',
      'end_session_endpoint',
    ]) {
      const res = await fetch(doc[key], { redirect: 'manual' });
      expect(res.status).not.toBe(404);
    }
    const tokenGet = await fetch(doc.token_endpoint);
    expect(tokenGet.status).toBe(405);
    expect(tokenGet.headers.get('allow')).toBe('POST');
  });

  it('lists the standard claims and the scopes that release them', async () => {
    const doc = (await (await get('/.well-known/openid-configuration')).json()) as Json;
    expect(doc.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'email', 'address', 'phone']));
    // OIDC Core §5.1 claims Keyflow can release, with the ID token's own, role, and the opt-in and team claims.
    expect([...doc.claims_supported].sort()).toEqual(
      [
        ...['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'acr', 'amr', 'sid', 'role'],
        ...['name', 'family_name', 'given_name', 'middle_name', 'nickname', 'preferred_username', 'profile', 'picture', 'website'],
        ...['gender', 'birthdate', 'zoneinfo', 'locale', 'updated_at', 'email', 'email_verified', 'address', 'phone_number', 'phone_number_verified'],
        ...['apps', 'domains', 'gpg_keys', 'social_accounts', 'teams'],
      ].sort(),
    );
  });

  it('serves the same metadata at both addresses', async () => {
    const [a, b] = await Promise.all([get('/.well-known/openid-configuration'), get('/.well-known/oauth-authorization-server')]);
    expect((await a.json()) as Json).toEqual((await b.json()) as Json);
  });

  it('describes the API as a protected resource (RFC 9728)', async () => {
    const res = await get('/.well-known/oauth-protected-resource');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Json;
    expect(doc).toMatchObject({
      resource: api.deps.config.issuer,
      authorization_servers: [api.deps.config.issuer],
      bearer_methods_supported: ['header'],
    });
    expect(doc.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'email', 'offline_access', 'webhooks:read']));
  });

  it('publishes the ML-DSA-65 and RS256 keys with cache headers', async () => {
    const res = await get('/.well-known/jwks.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/jwk-set\+json/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const { keys } = (await res.json()) as Json;
    const mldsa = keys.find((k: { alg: string }) => k.alg === 'ML-DSA-65');
    expect(mldsa).toEqual({ kty: 'AKP', alg: 'ML-DSA-65', pub: expect.any(String), kid: expect.any(String), use: 'sig' });
    expect(keys.find((k: { alg: string }) => k.alg === 'RS256')).toMatchObject({ kty: 'RSA', use: 'sig', kid: expect.any(String) });
    for (const k of keys) for (const priv of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'priv']) expect(k).not.toHaveProperty(priv);
  });

  it('signs JWTs that an independent verifier accepts with the published JWKS', async () => {
    const claims = { iss: api.deps.config.issuer, sub: 'subject-1', aud: 'rp', exp: Math.floor(Date.now() / 1000) + 60 };
    const rs256 = await api.deps.signer.sign(claims, { alg: 'RS256' });
    const jwks = createRemoteJWKSet(new URL(`${api.url}/.well-known/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(rs256, jwks, { issuer: api.deps.config.issuer, audience: 'rp', algorithms: ['RS256'] });
    expect(payload.sub).toBe('subject-1');
    expect(protectedHeader.kid).toEqual(expect.any(String));

    const mldsa = await api.deps.signer.sign(claims, { alg: 'ML-DSA-65' });
    const [h, p, s] = mldsa.split('.');
    const { kid } = JSON.parse(Buffer.from(h!, 'base64url').toString());
    const { keys } = (await (await get('/.well-known/jwks.json')).json()) as Json;
    const key = keys.find((k: { kid: string }) => k.kid === kid);
    expect(key.alg).toBe('ML-DSA-65');
    expect(ml_dsa65.verify(Buffer.from(s!, 'base64url'), Buffer.from(`${h}.${p}`), Buffer.from(key.pub, 'base64url'))).toBe(true);
  });
});

describe('WebFinger', () => {
  const rel = 'http://openid.net/specs/connect/1.0/issuer';
  const host = () => new URL(api.deps.config.issuer).host;
  let email: string;
  let username: string;
  beforeAll(async () => {
    email = uniqueEmail('wf');
    username = `wf${Date.now().toString(36)}`;
    await createUser(api.deps.store, { email, password: 'long enough password', username });
  });
  const webfinger = (resource: string, query = '') => get(`/.well-known/webfinger?resource=${encodeURIComponent(resource)}${query}`);

  it('answers acct:<user>@<issuer host> with the issuer link', async () => {
    const resource = `acct:${username}@${host()}`;
    const res = await webfinger(resource, `&rel=${encodeURIComponent(rel)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/jrd\+json/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect((await res.json()) as Json).toEqual({ subject: resource, links: [{ rel, href: api.deps.config.issuer }] });
  });

  it('gives the same answer whether or not the account exists (no enumeration)', async () => {
    const known = await webfinger(`acct:${username}@${host()}`);
    const unknown = await webfinger(`acct:nobody-${Date.now().toString(36)}@${host().toUpperCase()}`);
    expect([known.status, unknown.status]).toEqual([200, 200]);
    const [a, b] = [(await known.json()) as Json, (await unknown.json()) as Json];
    expect(a.links).toEqual([{ rel, href: api.deps.config.issuer }]);
    expect(b.links).toEqual(a.links);
    for (const header of ['content-type', 'cache-control', 'access-control-allow-origin']) expect(unknown.headers.get(header)).toBe(known.headers.get(header));
  });

  it('filters links by rel', async () => {
    const resource = `acct:${username}@${host()}`;
    const res = await webfinger(resource, '&rel=http://example.com/other');
    expect((await res.json()) as Json).toEqual({ subject: resource, links: [] });
  });

  it.each([
    ['missing', ''],
    ['empty', '?resource='],
    ['not acct', '?resource=https%3A%2F%2Fexample.com%2Falice'],
    ['no host', '?resource=acct%3Aalice'],
    ['badly percent-encoded', '?resource=acct%3Aal%25E0%25A4%25A%40localhost'],
    ['repeated', '?resource=acct%3Aa%40b.c&resource=acct%3Ad%40e.f'],
  ])('refuses a %s resource with 400 and a JSON error', async (_name, query) => {
    const res = await get(`/.well-known/webfinger${query}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as Json;
    expect(body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  });

  it("answers 404 for another host's accounts, existing or not: this issuer speaks for its own host only", async () => {
    for (const resource of [`acct:${email}`, 'acct:nobody-here@example.com']) {
      const res = await webfinger(resource);
      expect(res.status).toBe(404);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(((await res.json()) as Json).error).toBe('not_found');
    }
  });
});

describe('unknown paths and bad input', () => {
  it('answers JSON 404, never HTML', async () => {
    const res = await get('/nope');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('sets security headers', async () => {
    const res = await get('/healthz');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-powered-by')).toBeNull();
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
  });
});
