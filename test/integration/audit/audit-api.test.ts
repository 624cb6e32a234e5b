// The admin JSON API of the audit trail (GET /api/oauth/me/admin/audit) over
// HTTP, and what it shows of the app lifecycle whatever the path: the app API
// and dynamic registration (create, update, delete, with the owner or
// the registered client as actor). Filters (an event, a prefix, a client, a
// user, an outcome, a time range), paging by cursor to the end, and refusals:
// a bad event, time, outcome, limit or cursor is a 400 with the API's error
// body (never a 500); a non-admin gets the admin API's 404, an admin's token
// without admin:audit:read a 403.
import { createPersonalAccessToken } from '../../../lib/store/personal-access-tokens.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { requestJson } from '../../support/http.js';
import { awaitAuditRecord } from '../../support/audit.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { mintAccessToken } from '../../support/minted-token.js';
import { testDatabase } from '../../support/database.js';

const PASSWORD = 'audit api test password';
const AUDIT = '/api/oauth/me/admin/audit';
const api = useTestApi(testDatabase('audit_api').env);

const get = (token: string, query: Record<string, string> = {}) => requestJson(`${api.issuer}${AUDIT}?${new URLSearchParams(query)}`, 'GET', { token });

async function adminToken(scope = ['admin:audit:read']): Promise<{ id: string; token: string }> {
  const { user } = await newUser(api.deps, { prefix: 'audit-api-admin', password: PASSWORD, admin: true });
  return { id: user._id, token: await mintAccessToken(api, user._id, scope) };
}

/** Every record of a filter, page by page (`limit` each), newest first. */
async function allPages(token: string, query: Record<string, string>, limit: number): Promise<{ records: Json[]; pages: number }> {
  const records: Json[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await get(token, { ...query, limit: String(limit), ...(cursor ? { cursor } : {}) });
    expect(page.res.status).toBe(200);
    expect(page.body.records.length).toBeLessThanOrEqual(limit);
    records.push(...page.body.records);
    cursor = page.body.next_cursor;
    pages++;
  } while (cursor && pages < 20);
  return { records, pages };
}

describe('the app lifecycle in the audit trail, through the admin API', () => {
  it('records creation, update, secret rotation and deletion by the app API and by dynamic registration', async () => {
    const { token } = await adminToken();
    const { user: owner } = await newUser(api.deps, { prefix: 'audit-api-owner', password: PASSWORD });
    const pat = (await createPersonalAccessToken(api.deps.store, owner._id, { name: 't', scope: ['apps:read', 'apps:write'], expiresInDays: 1 })).token;
    const apps = (method: string, path = '', body?: unknown) => requestJson(`${api.issuer}/api/oauth/me/apps${path}`, method, { token: pat, body });

    // The app API: create, change, delete (a new secret needs a stepped-up token: the CLI's test has it).
    const made = await apps('POST', '', { name: 'Audited app', redirect_uris: ['https://audited-app.example/cb'] });
    expect(made.res.status).toBe(201);
    const appId: string = made.body.client_id;
    expect((await apps('PATCH', `/${appId}`, { name: 'Audited app, renamed' })).res.status).toBe(200);
    expect((await apps('DELETE', `/${appId}`)).res.status).toBe(204);

    const { records } = await allPages(token, { client: appId }, 2);
    const owned = { type: 'user', user_id: owner._id, client_id: expect.any(String) };
    expect(records.map((r) => [r.event, r.actor, r.subject, r.data])).toEqual([
      ['client.deleted', owned, { user_id: owner._id, client_id: appId }, { client_id: appId }],
      ['client.updated', owned, { user_id: owner._id, client_id: appId }, { client_id: appId, changed: ['name'] }],
      ['client.created', owned, { user_id: owner._id, client_id: appId }, { client_id: appId, via: 'api' }],
    ]);
    for (const r of records) {
      expect(r).toMatchObject({ stream: 'admin', outcome: 'success', ip: expect.any(String), request_id: expect.any(String), user_agent: expect.any(String) });
      expect(Date.parse(r.time)).not.toBeNaN();
    }
    // No secret in any of them.
    expect(JSON.stringify(records)).not.toMatch(/secret"\s*:\s*"[^"]{20,}/);

    // Dynamic registration: created with the initial access token's user; managed by the registered client itself.
    const registered = await requestJson(`${api.issuer}/api/oauth/register`, 'POST', {
      token: pat,
      body: { client_name: 'Registered', redirect_uris: ['https://audited-registered.example/cb'] },
    });
    expect(registered.res.status).toBe(201);
    const clientId: string = registered.body.client_id;
    const managed = { token: registered.body.registration_access_token as string };
    const put = await requestJson(registered.body.registration_client_uri, 'PUT', {
      ...managed,
      body: { client_id: clientId, client_name: 'Registered, renamed', redirect_uris: ['https://audited-registered.example/cb'] },
    });
    expect(put.res.status).toBe(200);
    expect((await requestJson(registered.body.registration_client_uri, 'DELETE', managed)).res.status).toBe(204);
    const reg = await get(token, { client: clientId, event: 'client.*' });
    expect(reg.body.records.map((r: Json) => [r.event, r.actor.client_id === clientId, r.data])).toEqual([
      ['client.deleted', true, { client_id: clientId }],
      ['client.updated', true, { client_id: clientId, changed: expect.arrayContaining(['name']) }],
      ['client.created', false, { client_id: clientId, via: 'registration' }],
    ]);
    expect(reg.body.next_cursor).toBeNull();
  });
});

describe('an app made on the account pages', () => {
  it('records client.created with the signed-in user, via page, and the request', async () => {
    const { email, user: owner } = await newUser(api.deps, { prefix: 'audit-page-owner', password: PASSWORD });
    const agent = new HttpUser(api.url);
    await agent.signIn(await agent.get('/login'), email, PASSWORD);
    const page = await (await agent.get('/account/apps')).res.text();
    const made = await agent.submit(page, '/account/apps', { name: 'Page app', redirect_uris: 'https://page-app.example/cb' });
    const shown = await made.res.text();
    expect(made.res.status).toBe(200);
    const record = await awaitAuditRecord(api.deps.store, { event: 'client.created', 'actor.userId': owner._id });
    expect(record).toMatchObject({
      stream: 'admin',
      outcome: 'success',
      actor: { type: 'user', userId: owner._id },
      subject: { userId: owner._id, clientId: record.data.client_id },
      data: { via: 'page' },
      requestId: made.res.headers.get('x-request-id'),
      ip: expect.any(String),
    });
    // The page shows the new app's id (and its secret, once); the record has the id only.
    expect(shown).toContain(String(record.data.client_id));
    const secret = /<code class="secret" data-client-secret>([^<]+)<\/code>/.exec(shown)?.[1];
    expect(secret).toBeTruthy();
    expect(JSON.stringify(record)).not.toContain(secret);
  });
});

describe('GET /api/oauth/me/admin/audit', () => {
  it('filters by event, prefix, user, outcome and time, and pages to the end with its cursor', async () => {
    const { id: adminId, token } = await adminToken(['admin:audit:read', 'admin:users:write']);
    const { user } = await newUser(api.deps, { prefix: 'audit-api-target', password: PASSWORD });
    const users = (method: string, path: string, body?: unknown) =>
      requestJson(`${api.issuer}/api/oauth/me/admin/users/${user._id}${path}`, method, { token, body });
    const before = new Date(Date.now() - 1000).toISOString();
    expect((await users('PATCH', '', { name: 'Audited once' })).res.status).toBe(200);
    expect((await users('PATCH', '', { disabled: true })).res.status).toBe(200);
    expect((await users('PATCH', '', { disabled: false })).res.status).toBe(200);
    expect((await users('PATCH', '', { name: 'Audited twice', role: 'admin' })).res.status).toBe(200);

    // A prefix: every user.* record of the user, newest first; pages of 2 give them all once.
    const { records, pages } = await allPages(token, { event: 'user.*', user: user._id }, 2);
    expect(pages).toBe(3);
    expect(records.map((r) => r.event).sort()).toEqual(['user.disabled', 'user.enabled', 'user.role.changed', 'user.updated', 'user.updated']);
    expect(new Set(records.map((r) => r.id)).size).toBe(5);
    expect(records.map((r) => r.time)).toEqual([...records.map((r) => r.time)].sort().reverse());
    for (const r of records) expect(r.actor).toEqual({ type: 'user', user_id: adminId, client_id: expect.any(String) });

    // One event; an outcome; a time range.
    const one = await get(token, { event: 'user.disabled', user: user._id });
    expect(one.body.records.map((r: Json) => [r.event, r.subject])).toEqual([['user.disabled', { user_id: user._id }]]);
    expect((await get(token, { user: user._id, outcome: 'failure' })).body.records).toEqual([]);
    expect((await get(token, { user: user._id, since: before })).body.records.length).toBe(5);
    expect((await get(token, { user: user._id, until: before })).body.records).toEqual([]);
    const role = await get(token, { event: 'user.role.changed', user: user._id });
    expect(role.body.records[0].data).toEqual({ admin: true });
  });

  it('refuses a bad filter or cursor with a 400 naming it, never a 500', async () => {
    const { token } = await adminToken();
    for (const [query, field] of [
      [{ event: 'no.such.event' }, 'event'],
      [{ event: 'admin.user.update' }, 'event'],
      [{ since: 'yesterday' }, 'since'],
      [{ until: '2026-13-45' }, 'until'],
      [{ since: '2026-11-28T10:00:00' }, 'since'],
      [{ outcome: 'maybe' }, 'outcome'],
      [{ limit: '0' }, 'limit'],
      [{ limit: '100000' }, 'limit'],
      [{ limit: 'ten' }, 'limit'],
      [{ cursor: 'garbage' }, 'cursor'],
      [{ cursor: 's:999' }, 'cursor'],
      [{ cursor: 'p:zz' }, 'cursor'],
      [{ user: 'x'.repeat(300) }, 'user'],
    ] as const) {
      const r = await get(token, query);
      expect([JSON.stringify(query), r.res.status, r.body.error]).toEqual([JSON.stringify(query), 400, 'invalid_request']);
      expect(r.body.error_description).toContain(field);
    }
    // A repeated parameter is refused too, not read as a list.
    const twice = await fetch(`${api.issuer}${AUDIT}?event=login&event=logout`, { headers: { authorization: `Bearer ${token}` } });
    expect(twice.status).toBe(400);
    // Not a method it takes: 405.
    expect((await requestJson(`${api.issuer}${AUDIT}`, 'POST', { token, body: {} })).res.status).toBe(405);
  });

  it('is for site admins with admin:audit:read only', async () => {
    const { user } = await newUser(api.deps, { prefix: 'audit-api-user', password: PASSWORD });
    // Not an admin, even holding the scope: the admin API's 404, as for an unknown path.
    const notAdmin = await get(await mintAccessToken(api, user._id, ['admin:audit:read']));
    expect([notAdmin.res.status, notAdmin.body.error]).toEqual([404, 'not_found']);
    // An admin without the scope: 403 insufficient_scope.
    const { token } = await adminToken(['admin:users:read', 'admin:config:read']);
    const r = await fetch(`${api.issuer}${AUDIT}`, { headers: { authorization: `Bearer ${token}` } });
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toMatch(/insufficient_scope/);
    // No token: the 401 challenge.
    expect((await fetch(`${api.issuer}${AUDIT}`)).status).toBe(401);
  });
});
