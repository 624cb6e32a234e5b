// The OAuth sources admin API (/api/oauth/me/admin/oauth_sources) against a real
// api: an admin's token from the code flow creates, lists, reads, changes and
// deletes sources; the client secret is sealed in MongoDB and never in an
// answer nor the audit log; oauth_source.* admin events carry the actor and the
// changed fields; a demoted admin and a non-admin get the unknown path's 404
// not_found, a missing scope is 403 insufficient_scope; bad input is a
// JSON 4xx naming the field on every route, never a 500; deleting a source
// unlinks its social accounts.
import { newId } from '../../../lib/security/secrets.js';
import { open } from '../../../lib/security/kek.js';
import { auditRecords } from '../../support/audit.js';
import { findSocialAccount, insertSocialAccount } from '../../../lib/store/oauth-sources.js';
import type { UserDoc } from '../../../lib/model/users.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { requestJson } from '../../support/http.js';
import { FLOW_PASSWORD, newTestRp, runCodeFlow, type TestRp } from '../../support/token-flow.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { mintAccessToken } from '../../support/minted-token.js';
import { testDatabase } from '../../support/database.js';

const BASE = '/api/oauth/me/admin/oauth_sources';
const SECRET = 'upstream-client-secret-d41d8cd98f00b204';
const RUN = Date.now().toString(36);
let rp: TestRp;

const api = useTestApi(testDatabase('sources_admin').env, { beforeStop: (running) => running.deps.events.idle() });
beforeAll(async () => {
  rp = await newTestRp(api, { allowedScopes: ['openid', 'admin:config:read', 'admin:config:write'] });
});

/** An admin (new unless given) and an access token from the code flow with `scope`. */
async function adminToken(scope = 'openid admin:config:read admin:config:write', user?: { email: string; doc: UserDoc }) {
  const admin = user ?? (await newUser(api.deps, { prefix: 'sources-admin', password: FLOW_PASSWORD, admin: true }));
  const who = 'doc' in admin ? admin : { email: admin.email, doc: admin.user };
  const { tokens } = await runCodeFlow(api, rp, scope, { user: who });
  return { token: tokens.access_token as string, user: who };
}

const call = (token: string | null, method: string, path: string, body?: unknown, contentType?: string) =>
  requestJson(`${api.deps.config.issuer}${path}`, method, { token, body, contentType });

const expectError = (c: { res: Response; body: Json }, status: number, error: string, mentions?: RegExp) => {
  expect({ status: c.res.status, error: c.body?.error }).toEqual({ status, error });
  expect(typeof c.body.error_description).toBe('string');
  if (mentions) expect(c.body.error_description).toMatch(mentions);
};

let n = 0;
const oidcBody = (extra: Record<string, unknown> = {}) => ({
  name: 'Upstream OIDC',
  slug: `oidc-${RUN}-${++n}`,
  issuer: 'https://idp.example.com',
  client_id: 'keyflow-client',
  client_secret: SECRET,
  ...extra,
});

describe('admin API', () => {
  it('creates, lists, reads, changes and deletes a source; the secret is sealed and never shown', async () => {
    const { token, user } = await adminToken();
    const created = await call(token, 'POST', BASE, oidcBody({ allow_sign_up: true, claim_mapping: { email: 'mail' } }));
    expect(created.res.status).toBe(201);
    const id = created.body.id as string;
    expect(created.res.headers.get('location')).toBe(`${api.deps.config.issuer}${BASE}/${id}`);
    expect(created.body).toMatchObject({
      slug: `oidc-${RUN}-${n}`,
      kind: 'oidc',
      issuer: 'https://idp.example.com',
      client_id: 'keyflow-client',
      client_secret_set: true,
      scopes: ['openid', 'email', 'profile'],
      allow_sign_up: true,
      link_by_verified_email: false,
      claim_mapping: { subject: 'sub', email: 'mail', email_verified: 'email_verified', name: 'name', username: 'preferred_username' },
      enabled: true,
    });
    expect(created.text).not.toContain(SECRET);

    // Sealed in MongoDB, bound to the source's id.
    const doc = await api.deps.store.oauthSources.findOne({ _id: id });
    expect(JSON.stringify(doc)).not.toContain(SECRET);
    expect(open(api.deps.kek, doc!.clientSecret!, `oauth-source:${id}`).toString()).toBe(SECRET);

    const listed = await call(token, 'GET', BASE);
    expect(listed.res.status).toBe(200);
    expect(listed.body.oauth_sources.map((s: Json) => s.id)).toContain(id);
    expect(listed.text).not.toContain(SECRET);
    const one = await call(token, 'GET', `${BASE}/${id}`);
    expect(one.body).toEqual(created.body);

    // PATCH: partial; a new secret replaces the sealed one, null removes it.
    const patched = await call(token, 'PATCH', `${BASE}/${id}`, { name: 'Renamed', client_secret: 'a-new-secret', claim_mapping: { name: 'display_name' } });
    expect(patched.res.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Renamed', issuer: 'https://idp.example.com', client_secret_set: true, allow_sign_up: true });
    expect(patched.body.claim_mapping).toMatchObject({ email: 'mail', name: 'display_name' });
    expect(patched.text).not.toContain('a-new-secret');
    const resealed = await api.deps.store.oauthSources.findOne({ _id: id });
    expect(open(api.deps.kek, resealed!.clientSecret!, `oauth-source:${id}`).toString()).toBe('a-new-secret');
    const cleared = await call(token, 'PATCH', `${BASE}/${id}`, { client_secret: null, enabled: false });
    expect(cleared.body).toMatchObject({ client_secret_set: false, enabled: false });
    expect((await api.deps.store.oauthSources.findOne({ _id: id }))!.clientSecret).toBeNull();

    // A social account linked through it goes with it.
    await insertSocialAccount(api.deps.store, {
      _id: newId(),
      userId: user.doc._id,
      sourceId: id,
      provider: 'x',
      providerUserId: `up-${RUN}`,
      email: null,
      linkedAt: new Date(),
      lastSignInAt: null,
    });
    expect((await call(token, 'DELETE', `${BASE}/${id}`)).res.status).toBe(204);
    expect(await findSocialAccount(api.deps.store, id, `up-${RUN}`)).toBeNull();
    expectError(await call(token, 'GET', `${BASE}/${id}`), 404, 'not_found');
    expectError(await call(token, 'DELETE', `${BASE}/${id}`), 404, 'not_found');

    // The audit log: every change with the actor and data, never a secret.
    const records = await auditRecords(api.deps.store, { 'data.source_id': id });
    expect(records.map((r) => [r.event, r.actor])).toEqual([
      ['oauth_source.create', expect.objectContaining({ type: 'user', userId: user.doc._id, clientId: rp.id })],
      ['oauth_source.update', expect.objectContaining({ type: 'user', userId: user.doc._id })],
      ['oauth_source.update', expect.objectContaining({ type: 'user', userId: user.doc._id })],
      ['oauth_source.delete', expect.objectContaining({ type: 'user', userId: user.doc._id })],
    ]);
    expect(records[0]!.data).toEqual({ source_id: id, slug: `oidc-${RUN}-${n}`, name: 'Upstream OIDC' });
    expect(records[1]!.data).toEqual({ source_id: id, slug: `oidc-${RUN}-${n}`, name: 'Renamed', changed: ['name', 'claim_mapping', 'client_secret'] });
    expect(records[2]!.data.changed).toEqual(['enabled', 'client_secret']);
    expect(records[3]!.data).toMatchObject({ social_accounts_unlinked: 1 });
    const audit = JSON.stringify(records);
    expect(audit).not.toContain(SECRET);
    expect(audit).not.toContain('a-new-secret');
  });

  it('makes oauth2 sources from explicit endpoints; a PATCH that changes nothing emits nothing', async () => {
    const { token } = await adminToken();
    const slug = `gh-${RUN}`;
    const created = await call(token, 'POST', BASE, {
      name: 'GitHub',
      slug,
      kind: 'oauth2',
      authorization_endpoint: 'https://github.com/login/oauth/authorize',
      token_endpoint: 'https://github.com/login/oauth/access_token',
      userinfo_endpoint: 'https://api.github.com/user',
      client_id: 'gh',
      scopes: ['read:user', 'user:email'],
      claim_mapping: { subject: 'id', username: 'login' },
    });
    expect(created.res.status).toBe(201);
    expect(created.body).toMatchObject({ kind: 'oauth2', issuer: null, client_secret_set: false, scopes: ['read:user', 'user:email'] });
    const same = await call(token, 'PATCH', `${BASE}/${created.body.id}`, { name: 'GitHub', scopes: ['read:user', 'user:email'] });
    expect(same.res.status).toBe(200);
    expect((await auditRecords(api.deps.store, { 'data.source_id': created.body.id, event: 'oauth_source.update' })).length).toBe(0);
    // A taken slug: 409 on create and on update.
    expectError(await call(token, 'POST', BASE, oidcBody({ slug })), 409, 'conflict', new RegExp(slug));
    const other = await call(token, 'POST', BASE, oidcBody());
    expectError(await call(token, 'PATCH', `${BASE}/${other.body.id}`, { slug }), 409, 'conflict');
  });

  it('names claim_mapping in answers as bodies name it: what GET answers is taken back by PATCH', async () => {
    const { token } = await adminToken();
    const made = await call(token, 'POST', BASE, oidcBody({ claim_mapping: { email_verified: 'mail_checked' } }));
    expect(made.res.status).toBe(201);
    const one = `${BASE}/${made.body.id}`;
    const got = await call(token, 'GET', one);
    const back = await call(token, 'PATCH', one, { claim_mapping: got.body.claim_mapping });
    expect([back.res.status, back.body.error_description]).toEqual([200, undefined]);
    expect(back.body).toEqual(got.body);
    expect(got.body.claim_mapping).toEqual({ subject: 'sub', email: 'email', email_verified: 'mail_checked', name: 'name', username: 'preferred_username' });
    // Every setting the answer shows, sent back as it was shown (the read-only fields left out), changes nothing.
    const { id: _id, client_secret_set: _set, created_at: _at, ...settings } = got.body;
    expect((await call(token, 'PATCH', one, settings)).body).toEqual(got.body);
    expect((await auditRecords(api.deps.store, { 'data.source_id': made.body.id, event: 'oauth_source.update' })).length).toBe(0);
  });

  it('refuses bad input on every route with a JSON 4xx naming the field, never a 500', async () => {
    const { token } = await adminToken();
    const made = await call(token, 'POST', BASE, oidcBody());
    const one = `${BASE}/${made.body.id}`;
    const cases: [string, string, unknown, RegExp][] = [
      ['POST', BASE, oidcBody({ issuer: 'http://idp.example.com' }), /issuer: must use https/],
      ['POST', BASE, oidcBody({ issuer: 'https://idp.example.com/?tenant=1' }), /issuer: must have no query/],
      ['POST', BASE, oidcBody({ issuer: 'ftp://idp.example.com' }), /issuer/],
      ['POST', BASE, oidcBody({ issuer: null }), /an oidc source needs issuer/],
      ['POST', BASE, oidcBody({ slug: 'Not A Slug' }), /slug/],
      ['POST', BASE, oidcBody({ client_id: '' }), /client_id/],
      ['POST', BASE, oidcBody({ scopes: 'openid' }), /scopes/],
      ['POST', BASE, oidcBody({ claim_mapping: { subject: 'a b' } }), /claim_mapping\.subject/],
      ['POST', BASE, oidcBody({ surprise: 1 }), /surprise/],
      ['POST', BASE, [1, 2], /expected object/],
      ['PATCH', one, { kind: 'oauth2' }, /oauth2 source needs/],
      ['PATCH', one, { token_endpoint: 'http://tokens.example.com/t' }, /token_endpoint: must use https/],
      ['PATCH', one, { allow_sign_up: 'yes' }, /allow_sign_up/],
      ['PATCH', one, { client_secret: 42 }, /client_secret/],
      ['PATCH', one, { claim_mapping: 'sub' }, /claim_mapping/],
      ['PATCH', one, [{ name: 'x' }], /JSON object/],
      ['PATCH', one, { id: 'other' }, /id/],
    ];
    for (const [method, path, body, mentions] of cases) expectError(await call(token, method, path, body), 400, 'invalid_request', mentions);
    expectError(await call(token, 'POST', BASE, '{"name":', 'application/json'), 400, 'invalid_request');
    expectError(await call(token, 'POST', BASE, 'name=x', 'application/x-www-form-urlencoded'), 400, 'invalid_request', /application\/json/);
    expectError(await call(token, 'PATCH', `${BASE}/${'x'.repeat(500)}`, { name: 'x' }), 404, 'not_found');
    expectError(await call(token, 'GET', `${BASE}/nope`), 404, 'not_found');
    expect((await call(token, 'PUT', one, {})).res.status).toBe(405);
    // http is allowed for a loopback issuer (tests, development).
    expect((await call(token, 'POST', BASE, oidcBody({ issuer: 'http://127.0.0.1:9/' }))).res.status).toBe(201);
    expect((await call(token, 'PATCH', one, { issuer: 'http://localhost:8080/realms/x' })).res.status).toBe(200);
  });

  it('is for site admins only (re-read per request) and needs the scope of each route', async () => {
    const { token, user } = await adminToken();
    const readOnly = (await adminToken('openid admin:config:read', user)).token;
    const none = (await adminToken('openid', user)).token;
    const made = await call(token, 'POST', BASE, oidcBody());
    expect(made.res.status).toBe(201);
    const one = `${BASE}/${made.body.id}`;
    expect((await call(readOnly, 'GET', one)).res.status).toBe(200);
    for (const [method, path, body] of [
      ['POST', BASE, oidcBody()],
      ['PATCH', one, { name: 'x' }],
      ['DELETE', one, undefined],
    ] as const) {
      const c = await call(readOnly, method, path, body);
      expectError(c, 403, 'insufficient_scope');
      expect(c.res.headers.get('www-authenticate')).toMatch(/insufficient_scope/);
    }
    expectError(await call(none, 'GET', BASE), 403, 'insufficient_scope');
    expect((await call(null, 'GET', BASE)).res.status).toBe(401);

    // A non-admin with a token carrying the scopes (minted directly: consent refuses them to non-admins).
    const { user: regular } = await newUser(api.deps, { prefix: 'sources-user', password: FLOW_PASSWORD });
    const minted = await mintedToken(regular, ['admin:config:read', 'admin:config:write']);
    expectError(await call(minted, 'GET', BASE), 404, 'not_found');
    expectError(await call(minted, 'DELETE', one), 404, 'not_found');

    // A demoted admin's tokens stop working at once.
    await api.deps.store.users.updateOne({ _id: user.doc._id }, { $set: { role: 'user' } });
    expectError(await call(token, 'GET', BASE), 404, 'not_found');
    expectError(await call(token, 'POST', BASE, oidcBody()), 404, 'not_found');
    expect((await api.deps.store.oauthSources.findOne({ _id: made.body.id }))?.name).toBe('Upstream OIDC');
  });
});

const mintedToken = (user: UserDoc, scope: string[]) => mintAccessToken(api, user._id, scope);
