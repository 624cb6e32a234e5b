// ML_DSA_SIGNING=off: a deployment whose relying parties use a JOSE library
// that refuses a JWK Set holding a key type it does not know (`AKP`). The JWKS
// and discovery carry classical keys and algorithms only, new clients get
// RS256 ID tokens (app API, dynamic registration, the CLI), ML-DSA-65 cannot be
// chosen, and a client registered for ML-DSA-65 before gets RS256 tokens (and
// signed UserInfo and JWT authorization responses) that verify against the
// published JWKS; a FAPI 2.0 client registered for it gets the profile's PS256.
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { createPersonalAccessToken } from '../../../lib/store/personal-access-tokens.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { runCli } from '../../support/cli.js';
import { authorizeAs, FLOW_PASSWORD, flowAuthorizeUrl, newTestRp, runCodeFlow } from '../../support/token-flow.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { testDatabase } from '../../support/database.js';
import { dpopProof, FAPI_REDIRECT, newFapiClient } from '../../support/fapi-client.js';
import { s256Challenge } from '../../../lib/model/pkce.js';
import { newSecret } from '../../../lib/security/secrets.js';

const database = testDatabase('ml_dsa_off');
const api = useTestApi({ ML_DSA_SIGNING: 'off', ...database.env });

async function postJson(path: string, token: string, body: unknown) {
  const res = await fetch(`${api.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

describe('with ML-DSA-65 withheld', () => {
  it('publishes only classical keys and algorithms', async () => {
    const jwks = (await (await fetch(`${api.url}/.well-known/jwks.json`)).json()) as Json;
    expect(jwks.keys.length).toBeGreaterThan(0);
    expect(jwks.keys.map((k: Json) => k.kty).sort()).toEqual(['EC', 'RSA', 'RSA']);
    expect(jwks.keys.map((k: Json) => k.alg).sort()).toEqual(['ES256', 'PS256', 'RS256']);
    const discovery = (await (await fetch(`${api.url}/.well-known/openid-configuration`)).json()) as Json;
    expect(discovery.id_token_signing_alg_values_supported).toEqual(['RS256', 'PS256', 'ES256']);
    expect(discovery.userinfo_signing_alg_values_supported).toEqual(['RS256', 'PS256', 'ES256']);
    expect(discovery.authorization_signing_alg_values_supported).toEqual(['RS256', 'PS256', 'ES256']);
  });

  it('gives new clients RS256 and refuses ML-DSA-65 on the app API, at dynamic registration and in the CLI', async () => {
    const user = await newUser(api.deps, { prefix: 'no-mldsa', password: FLOW_PASSWORD });
    const { token } = await createPersonalAccessToken(api.deps.store, user.id, { name: 't', scope: ['apps:write'], expiresInDays: 1 });
    const app = await postJson('/api/oauth/me/apps', token, { name: 'Classic', redirect_uris: ['https://classic.example/cb'] });
    expect([app.status, app.body.id_token_signed_response_alg]).toEqual([201, 'RS256']);
    const refused = await postJson('/api/oauth/me/apps', token, {
      name: 'PQ',
      redirect_uris: ['https://pq.example/cb'],
      id_token_signed_response_alg: 'ML-DSA-65',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error_description).toContain('id_token_signed_response_alg must be one of RS256');

    const registered = await postJson('/api/oauth/register', token, { client_name: 'Dynamic', redirect_uris: ['https://dynamic.example/cb'] });
    expect([registered.status, registered.body.id_token_signed_response_alg]).toEqual([201, 'RS256']);
    const pq = await postJson('/api/oauth/register', token, {
      client_name: 'Dynamic PQ',
      redirect_uris: ['https://dynamic.example/cb'],
      id_token_signed_response_alg: 'ML-DSA-65',
    });
    expect([pq.status, pq.body.error]).toEqual([400, 'invalid_client_metadata']);
    const pqUserinfo = await postJson('/api/oauth/register', token, {
      client_name: 'Dynamic PQ UserInfo',
      redirect_uris: ['https://dynamic.example/cb'],
      userinfo_signed_response_alg: 'ML-DSA-65',
    });
    expect([pqUserinfo.status, pqUserinfo.body.error_description]).toEqual([400, expect.stringContaining('userinfo_signed_response_alg must be one of RS256')]);
    const pqResponses = await postJson('/api/oauth/register', token, {
      client_name: 'Dynamic PQ responses',
      redirect_uris: ['https://dynamic.example/cb'],
      authorization_signed_response_alg: 'ML-DSA-65',
    });
    expect([pqResponses.status, pqResponses.body.error, pqResponses.body.error_description]).toEqual([
      400,
      'invalid_client_metadata',
      'authorization_signed_response_alg must be one of RS256, PS256, ES256',
    ]);

    const env = { ML_DSA_SIGNING: 'off', ...database.env };
    const cli = await runCli(['clients', 'create', '--name', 'CLI', '--redirect-uri', 'https://cli.example/cb', '--id-token-alg', 'ML-DSA-65'], env);
    expect([cli.code, cli.stderr]).toEqual([2, expect.stringContaining('id_token_signed_response_alg must be one of RS256')]);
    const created = await runCli(['clients', 'create', '--name', 'CLI', '--redirect-uri', 'https://cli.example/cb'], env);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ id_token_signed_response_alg: 'RS256' });
  });

  it('signs RS256 for a client registered for ML-DSA-65 before, verifiable with the published JWKS', async () => {
    const rp = await newTestRp(api, { idTokenSignedResponseAlg: 'ML-DSA-65', userinfoSignedResponseAlg: 'ML-DSA-65' });
    const { tokens } = await runCodeFlow(api, rp, 'openid profile');
    const jwks = createRemoteJWKSet(new URL(`${api.url}/.well-known/jwks.json`));
    const userinfo = await fetch(`${api.url}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(userinfo.headers.get('content-type')).toBe('application/jwt');
    for (const jwt of [tokens.id_token as string, tokens.access_token as string, await userinfo.text()]) {
      expect(decodeProtectedHeader(jwt).alg).toBe('RS256');
      await expect(jwtVerify(jwt, jwks, { issuer: api.deps.config.issuer })).resolves.toBeDefined();
    }
  });

  it('signs a JWT authorization response RS256 for a client registered for ML-DSA-65 responses before', async () => {
    const rp = await newTestRp(api, { authorizationSignedResponseAlg: 'ML-DSA-65' });
    const { email } = await newUser(api.deps, { prefix: 'no-mldsa-jarm', password: FLOW_PASSWORD });
    const url = flowAuthorizeUrl(api, rp, 'openid', 'v'.repeat(43), { response_mode: 'jwt' });
    const response = (await authorizeAs(new HttpUser(api.url), url, email, FLOW_PASSWORD)).searchParams.get('response')!;
    expect(decodeProtectedHeader(response).alg).toBe('RS256');
    const jwks = createRemoteJWKSet(new URL(`${api.url}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(response, jwks, { issuer: api.deps.config.issuer, audience: rp.id });
    expect(payload.code).toEqual(expect.any(String));
  });

  it("signs a FAPI 2.0 client's ML-DSA-65 tokens and answers with the profile's PS256, never RS256 (FAPI 2.0 §5.4.1)", async () => {
    const pqAlgs = { idTokenSignedResponseAlg: 'ML-DSA-65', userinfoSignedResponseAlg: 'ML-DSA-65', introspectionSignedResponseAlg: 'ML-DSA-65' } as const;
    const client = await newFapiClient(api, pqAlgs);
    const verifier = newSecret();
    const pushed = await client.post('/api/oauth/par', {
      response_type: 'code',
      redirect_uri: FAPI_REDIRECT,
      scope: 'openid profile',
      code_challenge: s256Challenge(verifier),
      code_challenge_method: 'S256',
    });
    expect([pushed.res.status, pushed.body.error]).toEqual([201, undefined]);
    const { email } = await newUser(api.deps, { prefix: 'no-mldsa-fapi', password: FLOW_PASSWORD });
    const url = `${api.url}/api/oauth/authorize?${new URLSearchParams({ client_id: client.id, request_uri: pushed.body.request_uri })}`;
    const code = (await authorizeAs(new HttpUser(api.url), url, email, FLOW_PASSWORD)).searchParams.get('code')!;
    const tokenUrl = `${api.url}/api/oauth/token`;
    const tokens = await client.post(
      '/api/oauth/token',
      { grant_type: 'authorization_code', code, redirect_uri: FAPI_REDIRECT, code_verifier: verifier },
      { dpop: await dpopProof(client.dpop, 'POST', tokenUrl) },
    );
    expect([tokens.res.status, tokens.body.error]).toEqual([200, undefined]);
    const access = tokens.body.access_token as string;
    const userinfoUrl = `${api.url}/api/oauth/userinfo`;
    const userinfo = await fetch(userinfoUrl, { headers: { authorization: `DPoP ${access}`, dpop: await dpopProof(client.dpop, 'GET', userinfoUrl, access) } });
    const introspection = await fetch(`${api.url}/api/oauth/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/token-introspection+jwt' },
      body: new URLSearchParams({ ...(await client.authentication()), token: access }),
    });
    expect([userinfo.status, introspection.status]).toEqual([200, 200]);
    const jwks = createRemoteJWKSet(new URL(`${api.url}/.well-known/jwks.json`));
    for (const jwt of [tokens.body.id_token as string, access, await userinfo.text(), await introspection.text()]) {
      expect(decodeProtectedHeader(jwt).alg).toBe('PS256');
      await expect(jwtVerify(jwt, jwks, { issuer: api.deps.config.issuer })).resolves.toBeDefined();
    }
  });
});
