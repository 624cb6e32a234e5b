// Signed UserInfo (OIDC Core §5.3.2): a client registered with
// userinfo_signed_response_alg gets its UserInfo as an application/jwt signed
// with Keyflow's published keys, with iss and aud added to the claims; any
// other client gets JSON as before. Set through dynamic registration (RFC 7591)
// and the app API; advertised in discovery; bad values refused.
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { ProfileUpdate } from '../../../lib/model/users.js';
import { createPersonalAccessToken } from '../../../lib/store/personal-access-tokens.js';
import { updateProfile } from '../../../lib/store/users.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { getUserinfo } from '../../support/http.js';
import { FLOW_PASSWORD, FLOW_REDIRECT, newTestRp, runCodeFlow, type TestRp } from '../../support/token-flow.js';
import { newUser } from '../../../tools/fixtures/users.js';

let token: string;
const api = useTestApi();
beforeAll(async () => {
  const { user } = await newUser(api.deps, { prefix: 'signed-ui', password: FLOW_PASSWORD });
  token = (await createPersonalAccessToken(api.deps.store, user._id, { name: 't', scope: ['apps:write'], expiresInDays: 1 })).token;
});

async function postJson(path: string, body: unknown, method = 'POST') {
  const res = await fetch(`${api.issuer}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** A client registered over RFC 7591 with `metadata`, as a TestRp, and its client information document. */
async function registeredRp(metadata: Record<string, unknown>): Promise<{ rp: TestRp; doc: Json }> {
  const { status, body } = await postJson('/api/oauth/register', { client_name: 'UserInfo RP', redirect_uris: [FLOW_REDIRECT], ...metadata });
  expect(status).toBe(201);
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(body.client_id)}:${encodeURIComponent(body.client_secret)}`).toString('base64')}`;
  return { rp: { id: body.client_id, auth: { authorization: basic } }, doc: body };
}

const userinfo = (accessToken: string, init: RequestInit = {}) => getUserinfo(api.issuer, accessToken, init);

const SCOPE = 'openid profile email address phone';

describe('signed UserInfo', () => {
  it('answers a client registered with userinfo_signed_response_alg RS256 with a JWT that verifies with the JWKS, GET and POST', async () => {
    const { rp, doc } = await registeredRp({ userinfo_signed_response_alg: 'RS256', scope: SCOPE });
    expect(doc.userinfo_signed_response_alg).toBe('RS256');
    // A user with claims of every scope asked for.
    const created = await newUser(api.deps, { prefix: 'signed-ui', password: FLOW_PASSWORD, name: 'Signed User' });
    const profile = ProfileUpdate.parse({ phone_number: '+15550100100', address: { locality: 'Springfield', country: 'US' } });
    const user = (await updateProfile(api.deps.store, created.user._id, profile))!.user;
    const { tokens } = await runCodeFlow(api, rp, SCOPE, { user: { email: created.email, doc: user } });

    const res = await userinfo(tokens.access_token);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/jwt');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const jwt = await res.text();
    expect(decodeProtectedHeader(jwt)).toMatchObject({ alg: 'RS256', kid: expect.any(String) });
    const { payload } = await jwtVerify(jwt, createRemoteJWKSet(new URL(`${api.issuer}/.well-known/jwks.json`)), {
      issuer: api.issuer,
      audience: rp.id,
      algorithms: ['RS256'],
    });
    expect(payload.sub).toBe(user._id);

    // The same claims as the JSON form, which a client without the setting gets (same user, same scope).
    const plain = await newTestRp(api, { allowedScopes: SCOPE.split(' ') });
    const { tokens: plainTokens } = await runCodeFlow(api, plain, SCOPE, { user: { email: created.email, doc: user } });
    const json = await userinfo(plainTokens.access_token);
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    const { iss, aud, ...claims } = payload;
    expect([iss, aud]).toEqual([api.issuer, rp.id]);
    expect(claims).toEqual(await json.json());
    expect(Object.keys(claims)).toEqual(expect.arrayContaining(['sub', 'name', 'email', 'address', 'phone_number']));

    // POST (form body) answers the same way.
    const posted = await userinfo(tokens.access_token, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(posted.headers.get('content-type')).toBe('application/jwt');
    expect(
      (await jwtVerify(await posted.text(), createRemoteJWKSet(new URL(`${api.issuer}/.well-known/jwks.json`)), { issuer: api.issuer, audience: rp.id }))
        .payload.sub,
    ).toBe(user._id);
  });

  it('signs with ML-DSA-65 when the client asked for it (the JWKS holds the key of its kid)', async () => {
    const { rp } = await registeredRp({ userinfo_signed_response_alg: 'ML-DSA-65' });
    const { tokens } = await runCodeFlow(api, rp, 'openid profile');
    const res = await userinfo(tokens.access_token);
    expect(res.headers.get('content-type')).toBe('application/jwt');
    const jwt = await res.text();
    const header = decodeProtectedHeader(jwt);
    expect(header.alg).toBe('ML-DSA-65');
    const jwks = (await (await fetch(`${api.issuer}/.well-known/jwks.json`)).json()) as Json;
    expect(jwks.keys.find((k: Json) => k.kid === header.kid)).toMatchObject({ kty: 'AKP', alg: 'ML-DSA-65' });
    expect(JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString())).toMatchObject({ iss: api.issuer, aud: rp.id });
  });

  it('answers JSON to a client registered without it or with none', async () => {
    for (const metadata of [{}, { userinfo_signed_response_alg: 'none' }]) {
      const { rp, doc } = await registeredRp(metadata);
      expect(doc.userinfo_signed_response_alg).toBeUndefined();
      const { tokens, user } = await runCodeFlow(api, rp, 'openid profile');
      const res = await userinfo(tokens.access_token);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(((await res.json()) as Json).sub).toBe(user._id);
    }
  });

  it('is set and cleared through the app API', async () => {
    const app = await postJson('/api/oauth/me/apps', { name: 'Signed app', redirect_uris: [FLOW_REDIRECT], userinfo_signed_response_alg: 'RS256' });
    expect([app.status, app.body.userinfo_signed_response_alg]).toEqual([201, 'RS256']);
    const rp: TestRp = {
      id: app.body.client_id,
      auth: { authorization: `Basic ${Buffer.from(`${app.body.client_id}:${app.body.client_secret}`).toString('base64')}` },
    };
    const { tokens } = await runCodeFlow(api, rp, 'openid');
    expect((await userinfo(tokens.access_token)).headers.get('content-type')).toBe('application/jwt');
    const cleared = await postJson(`/api/oauth/me/apps/${app.body.client_id}`, { userinfo_signed_response_alg: null }, 'PATCH');
    expect([cleared.status, cleared.body.userinfo_signed_response_alg]).toEqual([200, null]);
  });

  it('refuses an algorithm Keyflow does not offer', async () => {
    for (const alg of ['HS256', 'ES384', 'RS512', 42, null]) {
      const { status, body } = await postJson('/api/oauth/register', {
        client_name: 'Bad',
        redirect_uris: [FLOW_REDIRECT],
        userinfo_signed_response_alg: alg,
      });
      expect([JSON.stringify(alg), status, body.error]).toEqual([JSON.stringify(alg), 400, 'invalid_client_metadata']);
    }
    // The ID token may never go unsigned.
    const unsigned = await postJson('/api/oauth/register', { client_name: 'Bad', redirect_uris: [FLOW_REDIRECT], id_token_signed_response_alg: 'none' });
    expect([unsigned.status, unsigned.body.error]).toEqual([400, 'invalid_client_metadata']);
  });

  it('is advertised in discovery: the algorithms Keyflow signs with', async () => {
    const doc = (await (await fetch(`${api.issuer}/.well-known/openid-configuration`)).json()) as Json;
    expect(doc.userinfo_signing_alg_values_supported).toEqual(doc.id_token_signing_alg_values_supported);
    expect(doc.userinfo_signing_alg_values_supported).toEqual(['ML-DSA-65', 'RS256', 'PS256', 'ES256']);
  });
});
