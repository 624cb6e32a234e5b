// DPoP (RFC 9449): binding at the token endpoint (token_type DPoP, cnf.jkt),
// DPoP-bound refresh tokens for every client outside FAPI 2.0 (the same key's
// proof with each refresh; a family begun without DPoP is bound from its first
// proof on), DPoP at UserInfo and /api/oauth/me, introspection, and
// the refusals (htu, htm, ath, replayed jti, other key, bound token as Bearer,
// missing proof). Unbound Bearer tokens keep working.
import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { createClient } from '../../../lib/store/clients.js';
import { createUser } from '../../../lib/store/users.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { jwtClaims, postForm } from '../../support/http.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { withPkce, withVerifier } from '../../../tools/fixtures/pkce.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';

const PASSWORD = 'dpop test password';
const REDIRECT = 'https://dpop-rp.example/cb';
type Alg = 'RS256' | 'PS256' | 'ES256' | 'EdDSA';

type TestClient = { id: string; auth: Record<string, string>; body: Record<string, string> };
/** A confidential client (client_secret_basic), and a public one. */
let rp: TestClient;
let publicRp: TestClient;

const api = useTestApi();
beforeAll(async () => {
  const { client, clientSecret } = await createClient(api.deps.store, {
    name: 'DPoP RP',
    redirectUris: [{ type: 'equals', value: REDIRECT }],
    allowedScopes: ['openid', 'profile', 'email', 'offline_access', 'profile:write'],
    idTokenSignedResponseAlg: 'RS256',
  });
  rp = { id: client._id, auth: { authorization: `Basic ${Buffer.from(`${client._id}:${clientSecret}`).toString('base64')}` }, body: {} };
  const { client: pub } = await createClient(api.deps.store, {
    name: 'DPoP public RP',
    public: true,
    redirectUris: [{ type: 'equals', value: REDIRECT }],
    allowedScopes: ['openid', 'offline_access'],
    idTokenSignedResponseAlg: 'RS256',
  });
  publicRp = { id: pub._id, auth: {}, body: { client_id: pub._id } };
});

interface DpopKey {
  alg: Alg;
  privateKey: CryptoKey;
  jwk: JWK;
  jkt: string;
}

async function newKey(alg: Alg = 'ES256'): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  const jwk = await exportJWK(publicKey);
  return { alg, privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, 'sha256') };
}

const ath = (token: string) => createHash('sha256').update(token).digest('base64url');

function proof(key: DpopKey, htm: string, htu: string, o: { accessToken?: string; jti?: string; iat?: number; typ?: string; ath?: string } = {}) {
  const claims: Record<string, unknown> = { htm, htu, jti: o.jti ?? randomUUID(), iat: o.iat ?? Math.floor(Date.now() / 1000) };
  if (o.accessToken !== undefined) claims.ath = o.ath ?? ath(o.accessToken);
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, typ: o.typ ?? 'dpop+jwt', jwk: key.jwk }).sign(key.privateKey);
}

const tokenUrl = () => `${api.issuer}/api/oauth/token`;
const userinfoUrl = () => `${api.issuer}/api/oauth/userinfo`;

const post = (path: string, body: Record<string, string>, headers: Record<string, string> = {}, client = rp) =>
  postForm(api.issuer, path, { ...client.body, ...body }, { ...client.auth, ...headers });

async function authorizationCode(scope = 'openid profile offline_access', client = rp): Promise<string> {
  const email = uniqueEmail('dpop');
  await createUser(api.deps.store, { email, password: PASSWORD });
  const agent = new HttpUser(api.issuer);
  let step = await agent.get(
    `/api/oauth/authorize?${new URLSearchParams(withPkce({ response_type: 'code', client_id: client.id, redirect_uri: REDIRECT, scope }))}`,
  );
  step = await agent.signIn(step, email, PASSWORD);
  step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
  return step.external!.searchParams.get('code')!;
}

/** A code exchanged with a DPoP proof of `key` (or without DPoP when key is null). */
async function tokens(key: DpopKey | null, scope?: string, client = rp) {
  const code = await authorizationCode(scope ?? (client === rp ? undefined : 'openid offline_access'), client);
  const headers: Record<string, string> = key ? { dpop: await proof(key, 'POST', tokenUrl()) } : {};
  const r = await post('/api/oauth/token', withVerifier({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }), headers, client);
  expect(r.res.status).toBe(200);
  return r.body;
}

async function userinfo(headers: Record<string, string>, url = userinfoUrl()) {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return { res, body: text ? JSON.parse(text) : null, challenge: res.headers.get('www-authenticate') ?? '' };
}

async function dpopUserinfo(key: DpopKey, accessToken: string, o: Parameters<typeof proof>[3] & { htm?: string; htu?: string } = {}) {
  return userinfo({ authorization: `DPoP ${accessToken}`, dpop: await proof(key, o.htm ?? 'GET', o.htu ?? userinfoUrl(), { accessToken, ...o }) });
}

function expectDpopChallenge(r: { res: Response; challenge: string; body: Json }, error: string, description?: RegExp) {
  expect(r.res.status).toBe(401);
  expect(r.body.error).toBe(error);
  if (description) expect(r.body.error_description).toMatch(description);
  expect(r.challenge).toMatch(new RegExp(`^DPoP error="${error}"`));
  expect(r.challenge).toContain('algs="RS256 PS256 ES256 EdDSA"');
  expect(r.challenge).toContain(`resource_metadata="${api.issuer}/.well-known/oauth-protected-resource"`);
}

describe.each<Alg>(['ES256', 'RS256', 'PS256', 'EdDSA'])('DPoP with a %s key', (alg) => {
  it('binds the tokens at the token endpoint and is accepted at UserInfo with a proof', async () => {
    const key = await newKey(alg);
    const body = await tokens(key);
    expect(body.token_type).toBe('DPoP');
    expect(jwtClaims(body.access_token).cnf).toEqual({ jkt: key.jkt });
    const r = await dpopUserinfo(key, body.access_token);
    expect(r.res.status).toBe(200);
    expect(r.body.sub).toEqual(expect.any(String));
  });
});

describe('DPoP at resources', () => {
  let key: DpopKey;
  let accessToken: string;
  beforeAll(async () => {
    key = await newKey();
    accessToken = (await tokens(key)).access_token;
  });

  it('accepts a proof for POST UserInfo and for /api/oauth/me', async () => {
    const post = await fetch(userinfoUrl(), {
      method: 'POST',
      headers: { authorization: `DPoP ${accessToken}`, dpop: await proof(key, 'POST', userinfoUrl(), { accessToken }) },
    });
    expect(post.status).toBe(200);
    // htu ignores the query (RFC 9449 §4.3).
    const withQuery = await dpopUserinfo(key, accessToken, { htu: `${userinfoUrl()}?x=1` });
    expect(withQuery.res.status).toBe(200);
    // /api/oauth/me/*: the token lacks profile:write, so the proof passes and the scope check answers 403.
    const url = `${api.issuer}/api/oauth/me/profile`;
    const me = await fetch(url, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: `DPoP ${accessToken}`, dpop: await proof(key, 'PATCH', url, { accessToken }) },
      body: '{}',
    });
    expect(me.status).toBe(403);
    const meWrongHtm = await fetch(url, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: `DPoP ${accessToken}`, dpop: await proof(key, 'GET', url, { accessToken }) },
      body: '{}',
    });
    expect(meWrongHtm.status).toBe(401);
  });

  it('refuses a wrong htu', async () => {
    expectDpopChallenge(await dpopUserinfo(key, accessToken, { htu: `${api.issuer}/api/oauth/token` }), 'invalid_dpop_proof', /htu/);
    expectDpopChallenge(await dpopUserinfo(key, accessToken, { htu: 'https://elsewhere.example/api/oauth/userinfo' }), 'invalid_dpop_proof', /htu/);
  });

  it('refuses a wrong htm', async () => {
    expectDpopChallenge(await dpopUserinfo(key, accessToken, { htm: 'POST' }), 'invalid_dpop_proof', /htm/);
  });

  it('refuses a wrong or missing ath', async () => {
    expectDpopChallenge(await dpopUserinfo(key, accessToken, { ath: ath('another token') }), 'invalid_dpop_proof', /ath/);
    const noAth = await userinfo({ authorization: `DPoP ${accessToken}`, dpop: await proof(key, 'GET', userinfoUrl()) });
    expectDpopChallenge(noAth, 'invalid_dpop_proof', /ath/);
  });

  it('refuses a replayed proof (jti)', async () => {
    const p = await proof(key, 'GET', userinfoUrl(), { accessToken });
    expect((await userinfo({ authorization: `DPoP ${accessToken}`, dpop: p })).res.status).toBe(200);
    const replay = await userinfo({ authorization: `DPoP ${accessToken}`, dpop: p });
    expectDpopChallenge(replay, 'invalid_dpop_proof');
    expect(replay.body.error_description).toMatch(/already used/);
  });

  it('refuses a proof of another key', async () => {
    const other = await newKey();
    expectDpopChallenge(await dpopUserinfo(other, accessToken), 'invalid_token', /not signed by the key/);
  });

  it('refuses the bound token as Bearer, and without a proof', async () => {
    expectDpopChallenge(await userinfo({ authorization: `Bearer ${accessToken}` }), 'invalid_token', /DPoP-bound/);
    expectDpopChallenge(
      await userinfo({ authorization: `Bearer ${accessToken}`, dpop: await proof(key, 'GET', userinfoUrl(), { accessToken }) }),
      'invalid_token',
    );
    expectDpopChallenge(await userinfo({ authorization: `DPoP ${accessToken}` }), 'invalid_dpop_proof');
  });

  it('refuses stale proofs, a wrong typ, and a private key in the header', async () => {
    expectDpopChallenge(await dpopUserinfo(key, accessToken, { iat: Math.floor(Date.now() / 1000) - 300 }), 'invalid_dpop_proof', /iat/);
    expectDpopChallenge(await dpopUserinfo(key, accessToken, { typ: 'JWT' }), 'invalid_dpop_proof');
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const privateJwk = await exportJWK(privateKey);
    const leaked = await new SignJWT({ htm: 'GET', htu: userinfoUrl(), jti: randomUUID(), iat: Math.floor(Date.now() / 1000), ath: ath(accessToken) })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: privateJwk })
      .sign(privateKey);
    expectDpopChallenge(await userinfo({ authorization: `DPoP ${accessToken}`, dpop: leaked }), 'invalid_dpop_proof');
  });

  it('keeps unbound tokens working as Bearer, and refuses them with the DPoP scheme', async () => {
    const plain = await tokens(null);
    expect(plain.token_type).toBe('Bearer');
    expect(jwtClaims(plain.access_token).cnf).toBeUndefined();
    expect((await userinfo({ authorization: `Bearer ${plain.access_token}` })).res.status).toBe(200);
    expectDpopChallenge(await dpopUserinfo(key, plain.access_token), 'invalid_token', /not DPoP-bound/);
  });

  it('introspects a bound token with token_type DPoP and cnf', async () => {
    const r = await post('/api/oauth/introspect', { token: accessToken });
    expect(r.body).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: key.jkt } });
  });
});

describe('DPoP at the token endpoint', () => {
  it('refuses an invalid proof with 400 invalid_dpop_proof', async () => {
    const key = await newKey();
    for (const bad of [
      await proof(key, 'GET', tokenUrl()),
      await proof(key, 'POST', `${api.issuer}/api/oauth/userinfo`),
      await proof(key, 'POST', tokenUrl(), { iat: Math.floor(Date.now() / 1000) - 120 }),
      'not-a-jwt',
    ]) {
      const code = await authorizationCode('openid');
      const r = await post('/api/oauth/token', withVerifier({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }), { dpop: bad });
      expect(r.res.status).toBe(400);
      expect(r.body.error).toBe('invalid_dpop_proof');
    }
  });

  it("binds a public client's refresh family: a refresh needs a proof of the same key", async () => {
    const key = await newKey();
    const first = await tokens(key, undefined, publicRp);
    expect(first.refresh_token).toEqual(expect.any(String));
    // Without a proof, and with another key: refused, and the token is not used up.
    const none = await post('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token }, {}, publicRp);
    expect(none.res.status).toBe(400);
    expect(none.body.error).toBe('invalid_dpop_proof');
    const other = await post(
      '/api/oauth/token',
      { grant_type: 'refresh_token', refresh_token: first.refresh_token },
      { dpop: await proof(await newKey(), 'POST', tokenUrl()) },
      publicRp,
    );
    expect(other.res.status).toBe(400);
    expect(other.body.error).toBe('invalid_grant');
    // The same key: rotated, still bound.
    const ok = await post(
      '/api/oauth/token',
      { grant_type: 'refresh_token', refresh_token: first.refresh_token },
      { dpop: await proof(key, 'POST', tokenUrl()) },
      publicRp,
    );
    expect(ok.res.status).toBe(200);
    expect(ok.body.token_type).toBe('DPoP');
    expect(jwtClaims(ok.body.access_token).cnf).toEqual({ jkt: key.jkt });
    expect((await dpopUserinfo(key, ok.body.access_token)).res.status).toBe(200);
    // The rotated token stays bound.
    const again = await post('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: ok.body.refresh_token }, {}, publicRp);
    expect(again.body.error).toBe('invalid_dpop_proof');
    const again2 = await post(
      '/api/oauth/token',
      { grant_type: 'refresh_token', refresh_token: ok.body.refresh_token },
      { dpop: await proof(key, 'POST', tokenUrl()) },
      publicRp,
    );
    expect(again2.res.status).toBe(200);
  });

  it("binds a confidential client's refresh tokens too: a stolen refresh token and secret are useless without the key", async () => {
    const key = await newKey();
    const first = await tokens(key);
    const refresh = async (token: string, k: DpopKey | null) =>
      post('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: token }, k ? { dpop: await proof(k, 'POST', tokenUrl()) } : {});
    // With the client's secret but another key's proof, or none: refused, and nothing used up.
    expect((await refresh(first.refresh_token, await newKey())).body).toEqual({
      error: 'invalid_grant',
      error_description: expect.stringMatching(/DPoP proof/),
    });
    expect((await refresh(first.refresh_token, null)).body.error).toBe('invalid_dpop_proof');
    const rotated = await refresh(first.refresh_token, key);
    expect([rotated.res.status, rotated.body.token_type]).toEqual([200, 'DPoP']);
    expect(jwtClaims(rotated.body.access_token).cnf).toEqual({ jkt: key.jkt });
    // Its successor is bound to the same key.
    expect((await refresh(rotated.body.refresh_token, await newKey())).body.error).toBe('invalid_grant');
    expect((await refresh(rotated.body.refresh_token, key)).res.status).toBe(200);
  });

  it.each([
    ['public', () => publicRp],
    ['confidential', () => rp],
  ])("binds a %s client's family begun without DPoP from its first refresh with a proof on", async (_kind, client) => {
    const first = await tokens(null, 'openid offline_access', client());
    expect(first.token_type).toBe('Bearer');
    const refresh = async (token: string, k: DpopKey | null) =>
      post('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: token }, k ? { dpop: await proof(k, 'POST', tokenUrl()) } : {}, client());
    const key = await newKey();
    const upgraded = await refresh(first.refresh_token, key);
    expect([upgraded.res.status, upgraded.body.token_type]).toEqual([200, 'DPoP']);
    // RFC 9449 §5: the successor is bound to the proof's key; no proof, or another key's, gets nothing.
    expect((await refresh(upgraded.body.refresh_token, null)).body.error).toBe('invalid_dpop_proof');
    expect((await refresh(upgraded.body.refresh_token, await newKey())).body.error).toBe('invalid_grant');
    const next = await refresh(upgraded.body.refresh_token, key);
    expect([next.res.status, next.body.token_type]).toEqual([200, 'DPoP']);
  });

  it("retries a bound family's refresh within the window only with a proof of the same key", async () => {
    const key = await newKey();
    const first = await tokens(key, undefined, publicRp);
    const refresh = async (token: string, k: DpopKey | null) =>
      post('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: token }, k ? { dpop: await proof(k, 'POST', tokenUrl()) } : {}, publicRp);
    const lost = await refresh(first.refresh_token, key);
    expect(lost.res.status).toBe(200);
    // The retry: another key's proof, or none, is refused and supersedes nothing.
    const other = await refresh(first.refresh_token, await newKey());
    expect([other.res.status, other.body.error]).toEqual([400, 'invalid_grant']);
    expect((await refresh(first.refresh_token, null)).body.error).toBe('invalid_dpop_proof');
    const retry = await refresh(first.refresh_token, key);
    expect(retry.res.status).toBe(200);
    expect(retry.body.token_type).toBe('DPoP');
    expect(jwtClaims(retry.body.access_token).cnf).toEqual({ jkt: key.jkt });
    // The answer the retry replaced is reuse: the grant is revoked.
    const reuse = await refresh(lost.body.refresh_token, key);
    expect([reuse.res.status, reuse.body.error]).toEqual([400, 'invalid_grant']);
    expect(reuse.body.error_description).toMatch(/already used/);
    expect((await refresh(retry.body.refresh_token, key)).body.error).toBe('invalid_grant');
    expect((await dpopUserinfo(key, retry.body.access_token)).res.status).toBe(401);
  });

  it('advertises DPoP in the discovery documents', async () => {
    const as = (await (await fetch(`${api.issuer}/.well-known/openid-configuration`)).json()) as Json;
    expect(as.dpop_signing_alg_values_supported).toEqual(['RS256', 'PS256', 'ES256', 'EdDSA']);
    expect(as.token_endpoint_auth_methods_supported).toContain('private_key_jwt');
    expect(as.token_endpoint_auth_signing_alg_values_supported).toEqual(['RS256', 'PS256', 'ES256', 'EdDSA']);
    const pr = (await (await fetch(`${api.issuer}/.well-known/oauth-protected-resource`)).json()) as Json;
    expect(pr).toMatchObject({ dpop_signing_alg_values_supported: ['RS256', 'PS256', 'ES256', 'EdDSA'], dpop_bound_access_tokens_required: false });
  });
});
