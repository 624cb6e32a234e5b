// Signed introspection responses (RFC 9701): a caller that asks for
// application/token-introspection+jwt gets the introspection answer inside a
// JWT Keyflow signs (typ token-introspection+jwt; iss, aud = the caller, iat,
// and the answer under token_introspection, never at the top level), with the
// client's introspection_signed_response_alg (RS256 when none); any other
// caller gets JSON as before. Checked with jose and with oauth4webapi, an RP
// library that validates these responses itself.
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { createPersonalAccessToken } from '../../../lib/store/personal-access-tokens.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { FLOW_PASSWORD, newTestRp, runCodeFlow, type TestRp } from '../../support/token-flow.js';
import { newUser } from '../../../tools/fixtures/users.js';

const JWT_TYPE = 'application/token-introspection+jwt';
const api = useTestApi();
const jwks = () => createRemoteJWKSet(new URL(`${api.issuer}/.well-known/jwks.json`));

const introspect = (rp: TestRp, token: string, accept?: string) =>
  fetch(`${api.issuer}/api/oauth/introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...rp.auth, ...(accept ? { accept } : {}) },
    body: new URLSearchParams({ token }),
  });

describe('a caller asking for a JWT', () => {
  it('gets the answer signed (RS256 by default), under token_introspection, for an active and an inactive token', async () => {
    const rp = await newTestRp(api);
    const { tokens, user } = await runCodeFlow(api, rp, 'openid offline_access');

    const res = await introspect(rp, tokens.access_token, JWT_TYPE);
    expect([res.status, res.headers.get('content-type'), res.headers.get('cache-control')]).toEqual([200, JWT_TYPE, 'no-store']);
    const { payload, protectedHeader } = await jwtVerify(await res.text(), jwks(), {
      issuer: api.issuer,
      audience: rp.id,
      algorithms: ['RS256'],
      typ: 'token-introspection+jwt',
    });
    expect(payload.iat).toEqual(expect.any(Number));
    expect(protectedHeader.kid).toEqual(expect.any(String));
    expect(payload.token_introspection).toMatchObject({ active: true, sub: user._id, client_id: rp.id, token_type: 'Bearer' });
    // The answer is not at the top level: the JWT cannot pass for the token it describes.
    expect([payload.active, payload.sub, payload.scope]).toEqual([undefined, undefined, undefined]);

    // The refresh token, and a token that is nothing: the same envelope.
    const refresh = await (await introspect(rp, tokens.refresh_token, JWT_TYPE)).text();
    expect(decodeJwt(refresh).token_introspection).toMatchObject({ active: true, token_type: 'refresh_token' });
    const nothing = await (await introspect(rp, 'not-a-token', JWT_TYPE)).text();
    expect((await jwtVerify(nothing, jwks(), { issuer: api.issuer, audience: rp.id })).payload.token_introspection).toEqual({ active: false });
  });

  it('keeps JSON for a caller that does not prefer the JWT (no Accept, */*, JSON first)', async () => {
    const rp = await newTestRp(api);
    const { tokens } = await runCodeFlow(api, rp, 'openid');
    for (const accept of [undefined, '*/*', `application/json, ${JWT_TYPE};q=0.5`]) {
      const res = await introspect(rp, tokens.access_token, accept);
      expect([accept, res.status, res.headers.get('content-type')]).toEqual([accept, 200, expect.stringMatching(/^application\/json/)]);
      expect(((await res.json()) as Json).active).toBe(true);
    }
  });

  it("signs with the client's introspection_signed_response_alg", async () => {
    const rp = await newTestRp(api, { introspectionSignedResponseAlg: 'ES256' });
    const { tokens } = await runCodeFlow(api, rp, 'openid');
    const jwt = await (await introspect(rp, tokens.access_token, JWT_TYPE)).text();
    const { protectedHeader } = await jwtVerify(jwt, jwks(), { issuer: api.issuer, audience: rp.id, algorithms: ['ES256'] });
    expect(protectedHeader.typ).toBe('token-introspection+jwt');
  });
});

describe('the setting and its discovery', () => {
  it('is set by dynamic registration and the app API, refused when Keyflow does not sign with it, and advertised', async () => {
    const { user } = await newUser(api.deps, { prefix: 'introspection-jwt', password: FLOW_PASSWORD });
    const { token } = await createPersonalAccessToken(api.deps.store, user._id, { name: 't', scope: ['apps:write'], expiresInDays: 1 });
    const post = async (path: string, body: unknown, method = 'POST') => {
      const res = await fetch(`${api.issuer}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Json };
    };
    const registered = await post('/api/oauth/register', {
      client_name: 'RS',
      redirect_uris: ['https://rs.example/cb'],
      introspection_signed_response_alg: 'PS256',
    });
    expect([registered.status, registered.body.introspection_signed_response_alg]).toEqual([201, 'PS256']);
    const refused = await post('/api/oauth/register', {
      client_name: 'RS',
      redirect_uris: ['https://rs.example/cb'],
      introspection_signed_response_alg: 'HS256',
    });
    expect([refused.status, refused.body]).toEqual([
      400,
      { error: 'invalid_client_metadata', error_description: 'introspection_signed_response_alg must be one of ML-DSA-65, RS256, PS256, ES256' },
    ]);

    const app = await post('/api/oauth/me/apps', { name: 'RS app', redirect_uris: ['https://rs.example/cb'] });
    expect([app.status, app.body.introspection_signed_response_alg]).toEqual([201, null]);
    const set = await post(`/api/oauth/me/apps/${app.body.client_id}`, { introspection_signed_response_alg: 'ES256' }, 'PATCH');
    expect([set.status, set.body.introspection_signed_response_alg]).toEqual([200, 'ES256']);

    const discovery = (await (await fetch(`${api.issuer}/.well-known/oauth-authorization-server`)).json()) as Json;
    expect(discovery.introspection_signing_alg_values_supported).toEqual(['ML-DSA-65', 'RS256', 'PS256', 'ES256']);
  });
});

it('is what oauth4webapi asks for and validates (requestJwtResponse)', async () => {
  const rp = await newTestRp(api, { introspectionSignedResponseAlg: 'PS256' });
  const { tokens, user } = await runCodeFlow(api, rp, 'openid');
  const issuerUrl = new URL(api.issuer);
  const insecure = { [oauth.allowInsecureRequests]: true };
  const as = await oauth.processDiscoveryResponse(issuerUrl, await oauth.discoveryRequest(issuerUrl, { algorithm: 'oauth2', ...insecure }));
  const client: oauth.Client = { client_id: rp.id, introspection_signed_response_alg: 'PS256' };
  const clientAuth: oauth.ClientAuth = (_as, _client, _body, headers) => {
    headers.set('authorization', rp.auth.authorization);
  };
  const response = await oauth.introspectionRequest(as, client, clientAuth, tokens.access_token, { requestJwtResponse: true, ...insecure });
  expect(response.headers.get('content-type')).toBe(JWT_TYPE);
  const result = await oauth.processIntrospectionResponse(as, client, response);
  expect(result).toMatchObject({ active: true, sub: user._id, client_id: rp.id });
});
