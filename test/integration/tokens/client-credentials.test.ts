// grant_type=client_credentials (RFC 6749 §4.4) over HTTP: a confidential
// client with machine access gets an RS256 access token for itself (sub = its
// client id, aud = the resource, only the scopes an operator allowed, no
// refresh token), DPoP-bound with a proof; everything else is refused with
// the spec's error — a public client, a client without machine access, a scope
// or resource beyond it, an app owner who tries to give their own app machine
// access. The operator's CLI sets it (and revokes the tokens when it changes);
// each token is audited; the client's request limit applies; a FAPI 2.0
// client needs its DPoP proof; the token is no key to a user's data.
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { createPersonalAccessToken } from '../../../lib/store/personal-access-tokens.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { awaitAuditRecords } from '../../support/audit.js';
import { cliOn } from '../../support/cli.js';
import { testDatabase } from '../../support/database.js';
import { skipTime } from '../../support/clock.js';
import { jwtClaims, postForm, requestJson } from '../../support/http.js';
import { dpopProof, newDpopKey, newFapiClient } from '../../support/fapi-client.js';
import { newRp, type FixtureRp } from '../../../tools/fixtures/clients.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { inOneWindow } from '../../support/clock.js';

const database = testDatabase('client_credentials');
const LIMIT = 8;
const api = useTestApi({ ...database.env, REQUEST_LIMIT_PER_CLIENT: String(LIMIT) });
const apps = cliOn(database.env, 'apps');

const ORDERS = 'https://orders.example/';
const BILLING = 'https://billing.example/';
/** The api's client lookups are cached this long (cachedClientLookup), plus a margin. */
const CLIENT_CACHE_MS = 2_100;

/** A confidential machine client (no redirect URI) allowed `access`. */
const machineClient = (access = [{ resource: ORDERS, scopes: ['orders:read', 'orders:write'] }], extra = {}) =>
  newRp(api.deps, { name: 'Machine', redirectUris: [], machineAccess: access, ...extra });

const tokenRequest = (rp: FixtureRp, body: Record<string, string> | [string, string][], headers: Record<string, string> = {}) =>
  postForm(api, '/api/oauth/token', Array.isArray(body) ? [['grant_type', 'client_credentials'], ...body] : { grant_type: 'client_credentials', ...body }, {
    ...rp.headers,
    ...headers,
  });
const tokenUrl = () => `${api.url}/api/oauth/token`;

describe('client_credentials', () => {
  it('gives a machine client an RS256 access token for itself: sub is the client, aud the resource, no refresh token', async () => {
    const rp = await machineClient();
    const r = await tokenRequest(rp, { scope: 'orders:read' });
    expect([r.status, r.body.token_type, r.body.scope, r.body.refresh_token, r.body.id_token]).toEqual([200, 'Bearer', 'orders:read', undefined, undefined]);
    const jwks = createRemoteJWKSet(new URL(`${api.url}/.well-known/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(r.body.access_token, jwks, { issuer: api.deps.config.issuer, audience: ORDERS, typ: 'at+jwt' });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload).toMatchObject({ sub: rp.id, client_id: rp.id, scope: 'orders:read', aud: ORDERS });
    // No user signed in: none of the claims that describe a user's authentication.
    for (const claim of ['auth_time', 'acr', 'amr', 'sid']) expect([claim, payload[claim]]).toEqual([claim, undefined]);
    // Without scope: every scope allowed at the resource.
    expect((await tokenRequest(rp, {})).body.scope).toBe('orders:read orders:write');
  });

  it('refuses scopes and resources beyond what the operator allowed (invalid_scope, invalid_target)', async () => {
    const rp = await machineClient([
      { resource: ORDERS, scopes: ['orders:read'] },
      { resource: BILLING, scopes: ['billing:read'] },
    ]);
    const cases: [Record<string, string> | [string, string][], string, RegExp][] = [
      [{ resource: ORDERS, scope: 'orders:write' }, 'invalid_scope', /orders:write/],
      [{ resource: ORDERS, scope: 'billing:read' }, 'invalid_scope', /billing:read/],
      // Keyflow's user scopes are never a machine's.
      [{ resource: ORDERS, scope: 'openid profile' }, 'invalid_scope', /openid/],
      [{ resource: 'https://elsewhere.example/' }, 'invalid_target', /elsewhere/],
      // Two resources allowed: the request names one (RFC 8707).
      [{}, 'invalid_target', /name one with the resource parameter/],
    ];
    for (const [body, error, description] of cases) {
      const r = await tokenRequest(rp, body);
      expect([JSON.stringify(body), r.status, r.body.error, r.body.access_token]).toEqual([JSON.stringify(body), 400, error, undefined]);
      expect(r.body.error_description).toMatch(description);
    }
    const both = await tokenRequest(rp, [
      ['resource', ORDERS],
      ['resource', BILLING],
    ]);
    expect([both.status, jwtClaims(both.body.access_token).aud, both.body.scope]).toEqual([200, [ORDERS, BILLING], 'orders:read billing:read']);
  });

  it('binds the token to the DPoP key of a proof sent with the request', async () => {
    const rp = await machineClient();
    const key = await newDpopKey();
    const r = await tokenRequest(rp, {}, { dpop: await dpopProof(key, 'POST', tokenUrl()) });
    expect([r.status, r.body.token_type, jwtClaims(r.body.access_token).cnf]).toEqual([200, 'DPoP', { jkt: key.jkt }]);
  });

  it('refuses a public client, and a confidential one without machine access: unauthorized_client', async () => {
    const publicRp = await newRp(api.deps, { name: 'Public', public: true, redirectUris: [{ type: 'equals', value: 'https://public.example/cb' }] });
    const plainRp = await newRp(api.deps, { name: 'Plain', redirectUris: [{ type: 'equals', value: 'https://plain.example/cb' }] });
    for (const [rp, message] of [
      [publicRp, /confidential client/],
      [plainRp, /not allowed this application any resource/],
    ] as const) {
      const r = await postForm(api, '/api/oauth/token', { grant_type: 'client_credentials', ...rp.body }, rp.headers);
      expect([r.status, r.body.error, r.body.access_token]).toEqual([400, 'unauthorized_client', undefined]);
      expect(r.body.error_description).toMatch(message);
    }
    // The model refuses machine access for a public client at all.
    await expect(machineClient(undefined, { public: true })).rejects.toThrow(/public client cannot act for itself/);
  });

  it('lets no app owner give their app machine access, nor keep it while making the app public, through the app API or registration', async () => {
    const { user } = await newUser(api.deps, { prefix: 'cc-owner', password: 'client credentials owner' });
    const { token } = await createPersonalAccessToken(api.deps.store, user._id, { name: 't', scope: ['apps:read', 'apps:write'], expiresInDays: 1 });
    const appsUrl = `${api.url}/api/oauth/me/apps`;
    const access = [{ resource: ORDERS, scopes: ['orders:write'] }];
    const created = await requestJson(appsUrl, 'POST', { token, body: { name: 'Mine', redirect_uris: ['https://mine.example/cb'], machine_access: access } });
    expect([created.status, created.body.error]).toEqual([400, 'invalid_request']);
    expect(created.body.error_description).toMatch(/only operators allow an app machine access/);
    const mine = await requestJson(appsUrl, 'POST', { token, body: { name: 'Mine', redirect_uris: ['https://mine.example/cb'] } });
    expect(mine.status).toBe(201);
    const patched = await requestJson(`${appsUrl}/${mine.body.client_id}`, 'PATCH', { token, body: { machine_access: access } });
    expect([patched.status, patched.body.error]).toEqual([400, 'invalid_request']);
    // Dynamic registration ignores the field (RFC 7591 §2: unknown metadata).
    const registered = await requestJson(`${api.url}/api/oauth/register`, 'POST', {
      token,
      body: {
        client_name: 'Registered',
        redirect_uris: ['https://registered.example/cb'],
        grant_types: ['authorization_code', 'client_credentials'],
        machine_access: access,
      },
    });
    expect([registered.status, registered.body.machine_access]).toEqual([201, undefined]);
    const asked = await postForm(
      api,
      '/api/oauth/token',
      { grant_type: 'client_credentials' },
      {
        authorization: `Basic ${Buffer.from(`${registered.body.client_id}:${registered.body.client_secret}`).toString('base64')}`,
      },
    );
    expect([asked.status, asked.body.error]).toEqual([400, 'unauthorized_client']);

    // An operator allows an owner's app; the owner's later changes keep what the operator set, and cannot make it public.
    expect((await apps.ok('machine-access', mine.body.client_id, '--allow', `${ORDERS}=orders:read`)).machine_access).toEqual([
      { resource: ORDERS, scopes: ['orders:read'] },
    ]);
    const renamed = await requestJson(`${appsUrl}/${mine.body.client_id}`, 'PATCH', { token, body: { name: 'Renamed' } });
    expect([renamed.status, renamed.body.machine_access]).toEqual([200, [{ resource: ORDERS, scopes: ['orders:read'] }]]);
    const madePublic = await requestJson(`${appsUrl}/${mine.body.client_id}`, 'PATCH', { token, body: { public: true } });
    expect([madePublic.status, madePublic.body.error_description]).toEqual([400, expect.stringMatching(/public client cannot act for itself/)]);
  });

  it('is set by the operator: a change revokes the tokens the client held, and each token is audited', async () => {
    const rp = await machineClient(undefined, { redirectUris: [{ type: 'equals', value: 'https://machine.example/cb' }] });
    const first = await tokenRequest(rp, { scope: 'orders:write' });
    expect(first.status).toBe(200);
    const introspect = async (token: string) => (await postForm(api, '/api/oauth/introspect', { token }, rp.headers)).body;
    expect(await introspect(first.body.access_token)).toMatchObject({ active: true, sub: rp.id, client_id: rp.id, scope: 'orders:write' });

    const changed = await apps.ok('machine-access', rp.id, '--allow', `${ORDERS}=orders:read`);
    expect([changed.machine_access, changed.grants_revoked]).toEqual([[{ resource: ORDERS, scopes: ['orders:read'] }], 1]);
    expect((await introspect(first.body.access_token)).active).toBe(false);
    skipTime(CLIENT_CACHE_MS);
    expect((await tokenRequest(rp, { scope: 'orders:write' })).body.error).toBe('invalid_scope');
    const second = await tokenRequest(rp, {});
    expect([second.status, second.body.scope]).toEqual([200, 'orders:read']);

    // RFC 7009 revocation of one token.
    expect((await postForm(api, '/api/oauth/revoke', { token: second.body.access_token }, rp.headers)).status).toBe(200);
    expect((await introspect(second.body.access_token)).active).toBe(false);

    // Noted without waiting (the token endpoint's hot path): written within moments.
    const records = await awaitAuditRecords(api.deps.store, { event: 'token.issued', 'data.client_id': rp.id }, 2);
    expect(records).toHaveLength(2);
    expect(records.map((r) => [r.actor, r.data.grant_type, r.data.scopes, r.data.resource, r.data.bound])).toEqual([
      [{ type: 'client', clientId: rp.id }, 'client_credentials', ['orders:write'], [ORDERS], 'none'],
      [{ type: 'client', clientId: rp.id }, 'client_credentials', ['orders:read'], [ORDERS], 'none'],
    ]);
    // No token in the record.
    expect(JSON.stringify(records)).not.toContain(first.body.access_token.split('.')[2]);

    expect((await apps.ok('machine-access', rp.id, '--none')).machine_access).toEqual([]);
    skipTime(CLIENT_CACHE_MS);
    expect((await tokenRequest(rp, {})).body.error).toBe('unauthorized_client');
    // A client that only acts for itself keeps its machine access until it has a redirect URI.
    const machineOnly = await machineClient();
    const refused = await apps.run('machine-access', machineOnly.id, '--none');
    expect([refused.code, refused.stdout]).toEqual([2, '']);
    expect(refused.stderr).toMatch(/no redirect URI, so without machine access it could do nothing/);
  });

  it('is no key to a user: UserInfo and the app API refuse its token', async () => {
    const rp = await machineClient([{ resource: api.deps.config.issuer, scopes: ['orders:read'] }]);
    const r = await tokenRequest(rp, {});
    expect(r.status).toBe(200);
    for (const path of ['/api/oauth/userinfo', '/api/oauth/me/apps']) {
      const res = await fetch(`${api.url}${path}`, { headers: { authorization: `Bearer ${r.body.access_token}` } });
      expect([path, res.status]).toEqual([path, 401]);
    }
  });

  it("counts each request against the client's request limit: 429 slow_down past it", async () => {
    const rp = await machineClient();
    inOneWindow(60_000); // the per-client limit counts per minute
    const answers = await Promise.all(Array.from({ length: LIMIT + 4 }, () => tokenRequest(rp, {})));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(LIMIT);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(4);
    expect([refused[0]!.body.error, Number(refused[0]!.res.headers.get('retry-after')) > 0]).toEqual(['slow_down', true]);
  });

  it('holds a FAPI 2.0 client to its rules: a DPoP proof, and PS256', async () => {
    const client = await newFapiClient(api, { machineAccess: [{ resource: ORDERS, scopes: ['orders:read'] }] });
    const bare = await client.post('/api/oauth/token', { grant_type: 'client_credentials' });
    expect([bare.status, bare.body.error]).toEqual([400, 'invalid_request']);
    const bound = await client.post('/api/oauth/token', { grant_type: 'client_credentials' }, { dpop: await dpopProof(client.dpop, 'POST', tokenUrl()) });
    expect([bound.status, bound.body.token_type, decodeProtectedHeader(bound.body.access_token).alg]).toEqual([200, 'DPoP', 'PS256']);
  });

  it('is advertised in discovery', async () => {
    const doc = (await (await fetch(`${api.url}/.well-known/openid-configuration`)).json()) as Json;
    expect(doc.grant_types_supported).toContain('client_credentials');
  });
});
