// The webhook management API (/api/oauth/me/webhooks and
// /api/oauth/me/admin/webhooks) against a real api and a real receiver that
// verifies every signature: the secret shown once (generated or given) and
// rotated, list/get/patch/delete bodies, validation of events, URLs and
// bodies (never a 500), https only (http for an allow-listed loopback
// receiver), test pings (status answered and recorded; the body of an internal
// receiver never shown nor kept),
// inactive webhooks, the 50-entry history, scopes, the admin gate (404 to
// regular users, even with admin scopes), other users' webhooks (404), and the
// webhook.create/update/delete admin events (audit log + admin webhooks).
import { createPersonalAccessToken } from '../../../lib/store/personal-access-tokens.js';
import type { UserDoc } from '../../../lib/model/users.js';
import { auditRecords } from '../../support/audit.js';
import { recordDeliveries, storedHistory } from '../../../lib/store/webhook-history.js';
import { type WebhookDeliveryDoc, webhookDeliveryWorkflowId } from '../../../lib/model/webhook-delivery.js';
import { deleteWebhook, listWebhooks } from '../../../lib/store/webhooks.js';
import { useTestApi, eventually, type Json, startTestApi } from '../../support/harness.js';
import { deliveryStarted } from '../../support/deliveries.js';
import { requestJson } from '../../support/http.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';
import { mintAccessToken } from '../../support/minted-token.js';
import { testDatabase } from '../../support/database.js';

let receiver: WebhookReceiver;

const api = useTestApi(testDatabase('webhooks_api').env, { beforeStop: (running) => running.deps.events.idle() });
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  // Admin webhooks of earlier runs (dead receiver ports) would get this run's events.
  for (const hook of await listWebhooks(api.deps.store, 'admin')) await deleteWebhook(api.deps.store, hook._id);
});
afterAll(async () => {
  await receiver.close();
});

const USER_SCOPES = ['webhooks:read', 'webhooks:write'];
const ADMIN_SCOPES = ['admin:webhooks:read', 'admin:webhooks:write', 'admin:webhooks:delete'];
const USER_BASE = '/api/oauth/me/webhooks';
const ADMIN_BASE = '/api/oauth/me/admin/webhooks';

const USER = { prefix: 'webhooks', password: 'webhooks api test password' };
const ADMIN = { ...USER, admin: true };

const pat = async (user: UserDoc, scope: string[]) => (await createPersonalAccessToken(api.deps.store, user._id, { name: 't', scope, expiresInDays: 1 })).token;

const accessToken = (user: UserDoc, scope: string[]) => mintAccessToken(api, user._id, scope);

interface Call {
  res: Response;
  body: Json;
}

const call = (token: string | null, method: string, path: string, body?: unknown, init: { raw?: string; contentType?: string } = {}): Promise<Call> =>
  requestJson(`${api.issuer}${path}`, method, { token, body: init.raw ?? body, contentType: init.contentType });

let n = 0;
/** Creates a webhook pointing at its own receiver path; the receiver learns the secret from the answer. */
async function create(token: string, opts: { base?: string; events?: string[]; secret?: string; name?: string } = {}) {
  const path = `/api-hook-${++n}`;
  const { res, body } = await call(token, 'POST', opts.base ?? USER_BASE, {
    name: opts.name ?? `hook ${n}`,
    url: `${receiver.url}${path}?token=url-secret-${n}`,
    events: opts.events ?? ['profile.updated'],
    ...(opts.secret ? { secret: opts.secret } : {}),
  });
  expect(res.status).toBe(201);
  receiver.secrets.set(path, body.webhook.secret as string);
  return { id: body.webhook.id as string, secret: body.webhook.secret as string, path, body, res };
}

const expectError = (c: Call, status: number, error: string) => {
  expect({ status: c.res.status, error: c.body?.error }).toEqual({ status, error });
  expect(typeof c.body.error_description).toBe('string');
  expect(c.body.error_description).not.toMatch(/\n\s+at /);
};

describe('user webhooks', () => {
  let user: UserDoc;
  let token: string;
  beforeAll(async () => {
    ({ user } = await newUser(api.deps, USER));
    token = await pat(user, USER_SCOPES);
  });

  it('create answers the secret once (generated: 43 base64url characters); list and get never show it', async () => {
    const created = await create(token, { events: ['app.created', 'profile.updated', 'app.created'] });
    const w = created.body.webhook;
    expect(Object.keys(w).sort()).toEqual(['created_at', 'events', 'id', 'is_active', 'name', 'secret', 'url']);
    expect(w).toMatchObject({ name: `hook ${n}`, url: expect.stringContaining(created.path), events: ['app.created', 'profile.updated'], is_active: 1 });
    expect(w.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Math.abs(w.created_at - Date.now() / 1000)).toBeLessThan(60);
    expect(created.res.headers.get('location')).toBe(`${api.issuer}${USER_BASE}/${created.id}`);
    expect(created.res.headers.get('cache-control')).toBe('no-store');

    const got = await call(token, 'GET', `${USER_BASE}/${created.id}`);
    expect(got.res.status).toBe(200);
    expect(got.body.webhook).toEqual({
      id: created.id,
      name: w.name,
      url: w.url,
      events: w.events,
      is_active: 1,
      created_at: w.created_at,
      updated_at: expect.any(Number),
    });
    const list = await call(token, 'GET', USER_BASE);
    expect(list.res.status).toBe(200);
    expect(list.body.webhooks).toEqual([got.body.webhook]);
    expect(JSON.stringify([got.body, list.body])).not.toContain(created.secret);

    // The generated secret is the one deliveries are signed with.
    const ping = await call(token, 'POST', `${USER_BASE}/${created.id}/test`);
    expect(ping.res.status).toBe(200);
    expect(receiver.at(created.path)).toHaveLength(1);
    expect(receiver.at(created.path)[0]!.verified).toBe(true);
  }, 60_000);

  it('uses a given secret', async () => {
    const secret = 'a-given-secret-of-some-length';
    const created = await create(token, { secret });
    expect(created.secret).toBe(secret);
    expect((await call(token, 'POST', `${USER_BASE}/${created.id}/test`)).body.delivery.success).toBe(true);
    expect(receiver.at(created.path)[0]!.verified).toBe(true);
  }, 60_000);

  it('PATCH changes name, url, events and is_active and answers the webhook without its secret', async () => {
    const created = await create(token);
    const patched = await call(token, 'PATCH', `${USER_BASE}/${created.id}`, {
      name: '  renamed  ',
      events: ['*'],
      is_active: 0,
      url: 'https://hooks.example/new',
    });
    expect(patched.res.status).toBe(200);
    expect(patched.body.webhook).toMatchObject({ id: created.id, name: 'renamed', events: ['*'], is_active: 0, url: 'https://hooks.example/new' });
    expect(patched.body.webhook.secret).toBeUndefined();
    expect((await call(token, 'PATCH', `${USER_BASE}/${created.id}`, { is_active: true })).body.webhook.is_active).toBe(1);
    expect((await call(token, 'PATCH', `${USER_BASE}/${created.id}`, { is_active: false })).body.webhook.is_active).toBe(0);
    expect((await call(token, 'GET', `${USER_BASE}/${created.id}`)).body.webhook).toMatchObject({ name: 'renamed', is_active: 0 });

    expectError(await call(token, 'PATCH', `${USER_BASE}/${created.id}`, {}), 400, 'invalid_request');
    const unknown = await call(token, 'PATCH', `${USER_BASE}/${created.id}`, { name: 'x', colour: 'blue' });
    expectError(unknown, 400, 'invalid_request');
    expect(unknown.body.error_description).toContain('colour');
    expectError(await call(token, 'PATCH', `${USER_BASE}/${created.id}`, { is_active: 'yes' }), 400, 'invalid_request');
    expectError(await call(token, 'PATCH', `${USER_BASE}/${created.id}`, { is_active: 2 }), 400, 'invalid_request');
    expectError(await call(token, 'PATCH', `${USER_BASE}/${created.id}`, { secret: 'short' }), 400, 'invalid_request');
    expectError(await call(token, 'PATCH', `${USER_BASE}/${created.id}`, { events: ['webhook.create'] }), 400, 'invalid_request');
  }, 60_000);

  it('rotates the secret with PATCH: deliveries are signed with the new one, the old one no longer verifies', async () => {
    const created = await create(token);
    const rotated = 'the-rotated-secret-0123456789';
    const patched = await call(token, 'PATCH', `${USER_BASE}/${created.id}`, { secret: rotated });
    expect(patched.res.status).toBe(200);
    expect(JSON.stringify(patched.body)).not.toContain(rotated);
    await call(token, 'POST', `${USER_BASE}/${created.id}/test`);
    expect(receiver.at(created.path)[0]!.verified).toBe(false); // the receiver still holds the old secret
    receiver.secrets.set(created.path, rotated);
    await call(token, 'POST', `${USER_BASE}/${created.id}/test`);
    expect(receiver.at(created.path)[1]!.verified).toBe(true);
  }, 60_000);

  it('DELETE answers 204; the webhook and its history are gone', async () => {
    const created = await create(token);
    await call(token, 'POST', `${USER_BASE}/${created.id}/test`);
    const del = await call(token, 'DELETE', `${USER_BASE}/${created.id}`);
    expect(del.res.status).toBe(204);
    expectError(await call(token, 'GET', `${USER_BASE}/${created.id}`), 404, 'not_found');
    expectError(await call(token, 'DELETE', `${USER_BASE}/${created.id}`), 404, 'not_found');
    expect(await storedHistory(api.deps.store, created.id)).toEqual({ records: 0, deliveryIds: 0, head: false });
  }, 60_000);

  it('validates events: unknown names, an empty list and admin events are refused', async () => {
    const base = { name: 'x', url: 'https://hooks.example/x' };
    const unknown = await call(token, 'POST', USER_BASE, { ...base, events: ['app.created', 'nope.event'] });
    expectError(unknown, 400, 'invalid_request');
    expect(unknown.body.error_description).toContain('nope.event');
    expectError(await call(token, 'POST', USER_BASE, { ...base, events: [] }), 400, 'invalid_request');
    expectError(await call(token, 'POST', USER_BASE, { ...base, events: ['webhook.create'] }), 400, 'invalid_request');
    expectError(await call(token, 'POST', USER_BASE, { ...base, events: 'app.created' }), 400, 'invalid_request');
    expectError(await call(token, 'POST', USER_BASE, { ...base, events: [1] }), 400, 'invalid_request');
    expectError(await call(token, 'POST', USER_BASE, { ...base }), 400, 'invalid_request');
    expect((await call(token, 'GET', USER_BASE)).body.webhooks.map((w: Json) => w.name)).not.toContain('x');
  }, 60_000);

  it('validates URL, name and secret, and malformed bodies answer 400, never 500', async () => {
    const ok = { name: 'n', url: 'https://hooks.example/x', events: ['*'] };
    const bad: unknown[] = [
      { ...ok, url: 'ftp://hooks.example/x' },
      { ...ok, url: 'not a url' },
      { ...ok, url: '/relative/path' },
      { ...ok, url: 'javascript:alert(1)' },
      { ...ok, url: 'https://user:pw@hooks.example/x' },
      { ...ok, url: `https://hooks.example/${'a'.repeat(2000)}` },
      { ...ok, url: 42 },
      { ...ok, name: '' },
      { ...ok, name: '   ' },
      { ...ok, name: 'n'.repeat(101) },
      { ...ok, secret: 'x'.repeat(15) },
      { ...ok, secret: 'x'.repeat(257) },
      { ...ok, secret: 1234567890123456 },
      { ...ok, is_active: 1 },
      [ok],
      'string',
      null,
      { name: { $ne: null }, url: ok.url, events: ['*'] },
    ];
    for (const body of bad) {
      const c = await call(token, 'POST', USER_BASE, body);
      expectError(c, 400, 'invalid_request');
    }
    expectError(await call(token, 'POST', USER_BASE, undefined, { raw: '{"name": ' }), 400, 'invalid_request');
    expectError(await call(token, 'POST', USER_BASE, undefined, { raw: 'name=x', contentType: 'application/x-www-form-urlencoded' }), 400, 'invalid_request');
    expectError(await call(token, 'POST', USER_BASE), 400, 'invalid_request');
    expectError(await call(token, 'POST', USER_BASE, undefined, { raw: JSON.stringify({ ...ok, name: 'x'.repeat(70_000) }) }), 413, 'invalid_request');
    // A readable description: the field and the problem.
    const described = await call(token, 'POST', USER_BASE, { ...ok, url: 'ftp://hooks.example/x' });
    expect(described.body.error_description).toMatch(/^url: /);
    // 2000 characters exactly is accepted.
    const longest = `https://hooks.example/${'a'.repeat(2000 - 'https://hooks.example/'.length)}`;
    const longestHook = await call(token, 'POST', USER_BASE, { ...ok, url: longest });
    expect(longestHook.res.status).toBe(201);
    expect((await call(token, 'DELETE', `${USER_BASE}/${longestHook.body.webhook.id}`)).res.status).toBe(204);
    // Ids: unknown, very long, odd characters: 404.
    for (const id of ['unknown', 'x'.repeat(101), '%24where', '..%2F..']) {
      expectError(await call(token, 'GET', `${USER_BASE}/${id}`), 404, 'not_found');
      expectError(await call(token, 'PATCH', `${USER_BASE}/${id}`, { name: 'x' }), 404, 'not_found');
    }
    // Wrong methods: 405 with Allow.
    const put = await call(token, 'PUT', USER_BASE, ok);
    expectError(put, 405, 'invalid_request');
    expect(put.res.headers.get('allow')).toBe('GET, POST');
  }, 60_000);

  it('refuses a URL naming an internal address outside the allow-list (at create and PATCH); admits allow-listed hosts', async () => {
    const ok = { name: 'internal', url: 'https://hooks.example/x', events: ['*'] };
    for (const url of [
      'http://10.0.0.5/hook',
      'http://[::1]:8080/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://192.168.1.1/',
      'http://app.localhost/hook',
    ]) {
      const c = await call(token, 'POST', USER_BASE, { ...ok, url });
      expectError(c, 400, 'invalid_request');
      expect(c.body.error_description).toMatch(/^url: .* internal address/);
    }
    // The tests' OUTBOUND_ALLOWLIST admits 127.0.0.1 and localhost.
    const admitted = await call(token, 'POST', USER_BASE, { ...ok, url: 'http://localhost:9/hook' });
    expect(admitted.res.status).toBe(201);
    expectError(await call(token, 'PATCH', `${USER_BASE}/${admitted.body.webhook.id}`, { url: 'http://10.1.2.3/x' }), 400, 'invalid_request');
    expect((await call(token, 'DELETE', `${USER_BASE}/${admitted.body.webhook.id}`)).res.status).toBe(204);
  }, 30_000);

  it('limits a user to 20 webhooks: the 21st is 409 limit_reached', async () => {
    const busy = await pat((await newUser(api.deps, USER)).user, USER_SCOPES);
    const body = { name: 'many', url: 'https://hooks.example/many', events: ['*'] };
    for (let i = 0; i < 20; i++) expect((await call(busy, 'POST', USER_BASE, body)).res.status).toBe(201);
    expectError(await call(busy, 'POST', USER_BASE, body), 409, 'limit_reached');
    expect((await call(busy, 'GET', USER_BASE)).body.webhooks).toHaveLength(20);
  }, 60_000);

  it('keeps the limit under parallel creates: 8 at once with 18 taken make exactly 20, the others are 409 limit_reached', async () => {
    const busy = await pat((await newUser(api.deps, USER)).user, USER_SCOPES);
    const body = { name: 'racing', url: 'https://hooks.example/racing', events: ['*'] };
    for (let i = 0; i < 18; i++) expect((await call(busy, 'POST', USER_BASE, body)).res.status).toBe(201);
    const raced = await Promise.all(Array.from({ length: 8 }, () => call(busy, 'POST', USER_BASE, body)));
    expect(raced.filter((c) => c.res.status === 201)).toHaveLength(2);
    for (const c of raced.filter((c) => c.res.status !== 201)) expectError(c, 409, 'limit_reached');
    const listed = (await call(busy, 'GET', USER_BASE)).body.webhooks as Json[];
    expect(listed).toHaveLength(20);
    expect(listed.map((w) => w.id)).toEqual(expect.arrayContaining(raced.filter((c) => c.res.status === 201).map((c) => c.body.webhook.id)));
    // A deletion frees a place for one more.
    expect((await call(busy, 'DELETE', `${USER_BASE}/${listed[0].id}`)).res.status).toBe(204);
    expect((await call(busy, 'POST', USER_BASE, body)).res.status).toBe(201);
    expectError(await call(busy, 'POST', USER_BASE, body), 409, 'limit_reached');
  }, 60_000);

  it('a test ping to an internal receiver (admitted by the allow-list) answers its status, never its body, and keeps no body in the history or the workflow; non-2xx is a failure', async () => {
    const created = await create(token, { events: ['app.created'] });
    // The receiver listens on 127.0.0.1: internal, reachable only because the tests' allow-list admits it.
    receiver.answers.set(created.path, { status: 202, body: 'pong from the receiver' });
    const ping = await call(token, 'POST', `${USER_BASE}/${created.id}/test`);
    expect(ping.res.status).toBe(200);
    expect(ping.body.delivery).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      event: 'webhook.test',
      success: true,
      status_code: 202,
      error: null,
      duration_ms: expect.any(Number),
      delivered_at: expect.any(Number),
      response_body: null,
    });
    const handle = api.deps.temporal.client.workflow.getHandle(webhookDeliveryWorkflowId(ping.body.delivery.id));
    const history = JSON.stringify(await handle.fetchHistory(), (key, value) =>
      key === 'data' && typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : value,
    );
    expect(history).toMatch(/statusCode\\*":202/);
    expect(history).not.toContain('pong from the receiver');
    const [got] = receiver.at(created.path);
    expect(got!.verified).toBe(true);
    expect(got!.headers['x-keyflow-event']).toBe('webhook.test');
    expect(got!.headers['x-keyflow-delivery']).toBe(ping.body.delivery.id);
    expect(got!.body).toEqual({
      event: 'webhook.test',
      timestamp: expect.any(Number),
      data: { webhook_id: created.id, message: 'This is a test delivery from Keyflow.' },
    });

    receiver.answers.set(created.path, { status: 500, body: 'boom' });
    const failed = await call(token, 'POST', `${USER_BASE}/${created.id}/test`);
    expect(failed.res.status).toBe(200);
    expect(failed.body.delivery).toMatchObject({ success: false, status_code: 500, error: null, response_body: null });

    // The history shows no body either: the field is absent, as for events.
    const deliveries = await call(token, 'GET', `${USER_BASE}/${created.id}/deliveries`);
    expect(deliveries.res.status).toBe(200);
    const withoutBody = ({ response_body: _, ...rest }: Json) => rest;
    expect(deliveries.body.deliveries).toEqual([withoutBody(failed.body.delivery), withoutBody(ping.body.delivery)]);
    expect(deliveries.body.deliveries[0]).not.toHaveProperty('response_body');
  }, 60_000);

  it('a test ping that fails says only the error kind, never a system message or an address', async () => {
    const closed = await call(token, 'POST', USER_BASE, { name: 'closed', url: 'http://127.0.0.1:9/closed', events: ['*'] });
    expect(closed.res.status).toBe(201);
    const ping = await call(token, 'POST', `${USER_BASE}/${closed.body.webhook.id}/test`);
    expect(ping.res.status).toBe(200);
    expect(ping.body.delivery).toMatchObject({ success: false, status_code: null, error: 'unreachable', response_body: null });
    const text = JSON.stringify([ping.body, (await call(token, 'GET', `${USER_BASE}/${closed.body.webhook.id}/deliveries`)).body]);
    expect(text).not.toMatch(/ECONN|127\.0\.0\.1|connect /);
  }, 60_000);

  it('https only: http:// is refused, except for a loopback receiver the allow-list admits for webhooks', async () => {
    const ok = { name: 'plain', events: ['*'] };
    for (const url of ['http://hooks.example/x', 'http://93.184.216.34/x']) {
      const c = await call(token, 'POST', USER_BASE, { ...ok, url });
      expectError(c, 400, 'invalid_request');
      expect(c.body.error_description).toMatch(/^url: must use https/);
    }
    const https = await call(token, 'POST', USER_BASE, { ...ok, url: 'https://hooks.example/x' });
    expect(https.res.status).toBe(201);
    expectError(await call(token, 'PATCH', `${USER_BASE}/${https.body.webhook.id}`, { url: 'http://hooks.example/x' }), 400, 'invalid_request');
    // The tests' OUTBOUND_ALLOWLIST admits 127.0.0.1 and localhost on every port, for every feature.
    const loopback = await call(token, 'POST', USER_BASE, { ...ok, url: 'http://localhost:9/x' });
    expect(loopback.res.status).toBe(201);
    for (const id of [https.body.webhook.id, loopback.body.webhook.id]) expect((await call(token, 'DELETE', `${USER_BASE}/${id}`)).res.status).toBe(204);
  }, 30_000);

  it('admits an internal or plain-http receiver only on the host and port an entry names for webhooks', async () => {
    const own = await startTestApi({
      ...testDatabase('webhooks_allow').env,
      OUTBOUND_ALLOWLIST: 'webhooks=127.0.0.1:8080,jwks_uri=localhost:*,*=10.0.0.7:443',
    });
    try {
      const t = (
        await createPersonalAccessToken(own.deps.store, (await newUser(own.deps, { ...USER, prefix: 'allow' })).id, {
          name: 't',
          scope: USER_SCOPES,
          expiresInDays: 1,
        })
      ).token;
      const post = async (url: string) => {
        const res = await fetch(`${own.deps.config.issuer}${USER_BASE}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'x', url, events: ['*'] }),
        });
        return { status: res.status, body: (await res.json()) as Json };
      };
      expect((await post('http://127.0.0.1:8080/x')).status).toBe(201);
      expect((await post('https://10.0.0.7/x')).status).toBe(201);
      for (const url of ['http://127.0.0.1:8081/x', 'https://127.0.0.1/x', 'http://localhost:8080/x', 'https://10.0.0.7:8443/x']) {
        const refused = await post(url);
        expect([url, refused.status, refused.body.error]).toEqual([url, 400, 'invalid_request']);
        expect(refused.body.error_description).toMatch(/internal address/);
      }
      // Admitted, but not loopback: an internal host still gets https only.
      expect((await post('http://10.0.0.7:443/x')).body.error_description).toMatch(/^url: must use https/);
    } finally {
      await own.stop();
    }
  }, 60_000);

  it('an inactive webhook refuses test pings (409) and gets no events', async () => {
    const created = await create(token, { events: ['*'] });
    await call(token, 'PATCH', `${USER_BASE}/${created.id}`, { is_active: false });
    expectError(await call(token, 'POST', `${USER_BASE}/${created.id}/test`), 409, 'webhook_inactive');
    const eventId = crypto.randomUUID();
    await api.deps.events.user('profile.updated', user._id, { user_id: user._id, changed: ['name'] }, { type: 'user', userId: user._id }, { eventId });
    // The event's dispatch is over: no delivery to the webhook was started (Temporal knows it by id at once).
    await api.deps.events.idle();
    expect(await deliveryStarted(api.deps.temporal.client, eventId, created.id)).toBe(false);
    expect(receiver.at(created.path)).toEqual([]);
    expect((await call(token, 'GET', `${USER_BASE}/${created.id}/deliveries`)).body.deliveries).toEqual([]);
  }, 60_000);

  it('deliveries: at most 50, newest first; response_body only on test pings', async () => {
    const created = await create(token);
    const start = Date.now() - 3_600_000;
    const docs: WebhookDeliveryDoc[] = Array.from({ length: 55 }, (_, i) => ({
      _id: `d-${created.id}-${String(i).padStart(2, '0')}`,
      webhookId: created.id,
      event: i === 54 ? 'webhook.test' : 'profile.updated',
      success: i % 2 === 0,
      statusCode: i % 2 === 0 ? 200 : 500,
      error: null,
      deliveredAt: new Date(start + i * 1000),
      durationMs: 5,
      ...(i === 54 ? { responseBody: 'ok' } : {}),
    }));
    await recordDeliveries(api.deps.store, created.id, docs);
    const { res, body } = await call(token, 'GET', `${USER_BASE}/${created.id}/deliveries`);
    expect(res.status).toBe(200);
    expect(body.deliveries).toHaveLength(50);
    expect(body.deliveries.map((d: Json) => d.id)).toEqual(
      docs
        .slice(5)
        .reverse()
        .map((d) => d._id),
    );
    expect(body.deliveries[0]).toEqual({
      id: docs[54]!._id,
      event: 'webhook.test',
      success: true,
      status_code: 200,
      error: null,
      duration_ms: 5,
      delivered_at: Math.floor(docs[54]!.deliveredAt.getTime() / 1000),
      response_body: 'ok',
    });
    expect(body.deliveries[1]).not.toHaveProperty('response_body');
  }, 60_000);

  it('scopes: webhooks:read reads only, webhooks:write is needed for every change, a token is required', async () => {
    const created = await create(token);
    const ro = await pat(user, ['webhooks:read']);
    const wo = await accessToken(user, ['webhooks:write']);
    expect((await call(ro, 'GET', USER_BASE)).res.status).toBe(200);
    expect((await call(ro, 'GET', `${USER_BASE}/${created.id}`)).res.status).toBe(200);
    expect((await call(ro, 'GET', `${USER_BASE}/${created.id}/deliveries`)).res.status).toBe(200);
    const denied = [
      await call(ro, 'POST', USER_BASE, { name: 'x', url: 'https://hooks.example/x', events: ['*'] }),
      await call(ro, 'PATCH', `${USER_BASE}/${created.id}`, { name: 'x' }),
      await call(ro, 'DELETE', `${USER_BASE}/${created.id}`),
      await call(ro, 'POST', `${USER_BASE}/${created.id}/test`),
      await call(wo, 'GET', USER_BASE),
      await call(wo, 'GET', `${USER_BASE}/${created.id}/deliveries`),
    ];
    for (const c of denied) {
      expectError(c, 403, 'insufficient_scope');
      expect(c.res.headers.get('www-authenticate')).toMatch(/^Bearer .*error="insufficient_scope"/);
    }
    expect((await call(wo, 'PATCH', `${USER_BASE}/${created.id}`, { name: 'by an oauth token' })).res.status).toBe(200);
    expect((await call(null, 'GET', USER_BASE)).res.status).toBe(401);
    expect((await call('not-a-token', 'GET', USER_BASE)).res.status).toBe(401);
    expect(receiver.at(created.path)).toEqual([]);
  }, 60_000);

  it("another user's webhook (user or admin) is 404 on every route", async () => {
    const created = await create(token);
    const { user: other } = await newUser(api.deps, USER);
    const otherToken = await pat(other, USER_SCOPES);
    const { user: admin } = await newUser(api.deps, ADMIN);
    const adminToken = await pat(admin, [...USER_SCOPES, ...ADMIN_SCOPES]);
    const adminHook = await create(adminToken, { base: ADMIN_BASE, events: ['*'] });
    for (const [t, id] of [
      [otherToken, created.id],
      [adminToken, created.id], // an admin does not see users' webhooks here either
      [token, adminHook.id], // an admin webhook is not a user webhook
    ] as const) {
      const routes: [string, string, unknown?][] = [
        ['GET', ''],
        ['PATCH', '', { name: 'taken' }],
        ['DELETE', ''],
        ['POST', '/test'],
        ['GET', '/deliveries'],
      ];
      for (const [method, suffix, body] of routes) {
        expectError(await call(t, method, `${USER_BASE}/${id}${suffix}`, body), 404, 'not_found');
      }
    }
    expect((await call(otherToken, 'GET', USER_BASE)).body.webhooks).toEqual([]);
    expect((await call(token, 'GET', `${USER_BASE}/${created.id}`)).body.webhook.name).toBe(created.body.webhook.name);
    expect(receiver.at(created.path)).toEqual([]);
    expect(receiver.at(adminHook.path).filter((d) => d.body.event === 'webhook.test')).toEqual([]);
  }, 60_000);
});

describe('admin webhooks', () => {
  it('are 404 to a regular user on every route, even with admin scopes (checked before the scope)', async () => {
    const { user: admin } = await newUser(api.deps, ADMIN);
    const hook = await create(await pat(admin, ADMIN_SCOPES), { base: ADMIN_BASE, events: ['invite.create'] });
    const { user } = await newUser(api.deps, USER);
    const tokens = [await accessToken(user, ADMIN_SCOPES), await pat(user, ADMIN_SCOPES), await pat(user, USER_SCOPES)];
    const routes: [string, string, unknown?][] = [
      ['GET', ADMIN_BASE],
      ['POST', ADMIN_BASE, { name: 'x', url: 'https://hooks.example/x', events: ['*'] }],
      ['PUT', ADMIN_BASE],
      ['GET', `${ADMIN_BASE}/${hook.id}`],
      ['PATCH', `${ADMIN_BASE}/${hook.id}`, { is_active: false }],
      ['DELETE', `${ADMIN_BASE}/${hook.id}`],
      ['POST', `${ADMIN_BASE}/${hook.id}/test`],
      ['GET', `${ADMIN_BASE}/${hook.id}/deliveries`],
      ['GET', `${ADMIN_BASE}/unknown-id`],
      ['POST', `${ADMIN_BASE}/${hook.id}/deliveries`],
    ];
    for (const t of tokens) for (const [method, path, body] of routes) expectError(await call(t, method, path, body), 404, 'not_found');
    expect((await call(null, 'GET', ADMIN_BASE)).res.status).toBe(401);
    // Nothing changed, nothing was sent.
    const adminToken = await pat(admin, ADMIN_SCOPES);
    expect((await call(adminToken, 'GET', `${ADMIN_BASE}/${hook.id}`)).body.webhook).toMatchObject({ is_active: 1, name: hook.body.webhook.name });
    expect(receiver.at(hook.path)).toEqual([]);
  }, 60_000);

  it('admins reach them: site-wide (every admin sees all), admin events only, the admin scopes', async () => {
    const { user: a1 } = await newUser(api.deps, ADMIN);
    const { user: a2 } = await newUser(api.deps, ADMIN);
    const t1 = await pat(a1, ADMIN_SCOPES);
    const t2 = await accessToken(a2, ADMIN_SCOPES);
    const hook = await create(t1, { base: ADMIN_BASE, events: ['admin.config.update', 'invite.create'] });
    expect(hook.body.webhook.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(hook.res.headers.get('location')).toBe(`${api.issuer}${ADMIN_BASE}/${hook.id}`);
    // The other admin sees, changes, pings and reads it.
    expect((await call(t2, 'GET', ADMIN_BASE)).body.webhooks.map((w: Json) => w.id)).toContain(hook.id);
    expect((await call(t2, 'PATCH', `${ADMIN_BASE}/${hook.id}`, { name: 'site hook' })).body.webhook.name).toBe('site hook');
    const ping = await call(t2, 'POST', `${ADMIN_BASE}/${hook.id}/test`);
    expect(ping.body.delivery).toMatchObject({ success: true, status_code: 200, response_body: null });
    expect(receiver.at(hook.path)[0]!.verified).toBe(true);
    const { response_body: _, ...recorded } = ping.body.delivery;
    expect((await call(t1, 'GET', `${ADMIN_BASE}/${hook.id}/deliveries`)).body.deliveries).toEqual([recorded]);
    // Admin webhooks subscribe to admin events only.
    expectError(await call(t1, 'POST', ADMIN_BASE, { name: 'x', url: 'https://hooks.example/x', events: ['app.created'] }), 400, 'invalid_request');
    // Each admin scope for its routes.
    const readOnly = await pat(a1, ['admin:webhooks:read']);
    const writeOnly = await pat(a1, ['admin:webhooks:write']);
    const userScoped = await pat(a1, USER_SCOPES);
    expect((await call(readOnly, 'GET', `${ADMIN_BASE}/${hook.id}`)).res.status).toBe(200);
    expectError(await call(readOnly, 'PATCH', `${ADMIN_BASE}/${hook.id}`, { name: 'y' }), 403, 'insufficient_scope');
    expectError(await call(readOnly, 'POST', `${ADMIN_BASE}/${hook.id}/test`), 403, 'insufficient_scope');
    expectError(await call(writeOnly, 'DELETE', `${ADMIN_BASE}/${hook.id}`), 403, 'insufficient_scope');
    expectError(await call(writeOnly, 'GET', ADMIN_BASE), 403, 'insufficient_scope');
    expectError(await call(userScoped, 'GET', ADMIN_BASE), 403, 'insufficient_scope');
    // An admin's user webhooks and the site's webhooks are separate lists.
    expect((await call(userScoped, 'GET', USER_BASE)).body.webhooks).toEqual([]);
    expect((await call(await pat(a2, ['admin:webhooks:delete']), 'DELETE', `${ADMIN_BASE}/${hook.id}`)).res.status).toBe(204);
    expectError(await call(t1, 'GET', `${ADMIN_BASE}/${hook.id}`), 404, 'not_found');
  }, 60_000);
});

describe('webhook.create / webhook.update / webhook.delete', () => {
  it('are in the audit log without secret or URL path and reach admin webhooks subscribed to them', async () => {
    const { user: admin } = await newUser(api.deps, ADMIN);
    const watcher = await create(await pat(admin, ADMIN_SCOPES), { base: ADMIN_BASE, events: ['webhook.create', 'webhook.update', 'webhook.delete'] });
    const { user } = await newUser(api.deps, USER);
    const token = await accessToken(user, USER_SCOPES);
    const created = await create(token, { events: ['app.created'], secret: 'a-user-secret-never-logged' });
    const rotated = 'a-rotated-secret-never-logged';
    await call(token, 'PATCH', `${USER_BASE}/${created.id}`, { secret: rotated, name: 'renamed hook', is_active: 0 });
    await call(token, 'PATCH', `${USER_BASE}/${created.id}`, { name: 'renamed hook' }); // no change: no event
    expect((await call(token, 'DELETE', `${USER_BASE}/${created.id}`)).res.status).toBe(204);

    const records = await auditRecords(api.deps.store, { 'data.webhook_id': created.id });
    expect(records.map((r) => r.event)).toEqual(['webhook.create', 'webhook.update', 'webhook.delete']);
    const host = new URL(receiver.url).host;
    const base = { webhook_id: created.id, scope: 'user', owner_user_id: user._id };
    expect(records[0]!.data).toEqual({ ...base, name: created.body.webhook.name, url_host: host, events: ['app.created'] });
    expect(records[1]!.data).toEqual({
      ...base,
      name: 'renamed hook',
      url_host: host,
      events: ['app.created'],
      changed: expect.arrayContaining(['name', 'is_active', 'secret']),
    });
    expect(records[1]!.data.changed).toHaveLength(3);
    expect(records[2]!.data).toEqual({ ...base, name: 'renamed hook' });
    for (const r of records) expect(r.actor).toEqual({ type: 'user', userId: user._id, clientId: expect.any(String) });
    const all = JSON.stringify(records);
    expect(all).not.toContain('never-logged');
    expect(all).not.toContain('url-secret');
    expect(all).not.toContain(created.path);

    // The admin webhook got the three, signed.
    await eventually(() => expect(receiver.at(watcher.path).filter((d) => d.body.data.webhook_id === created.id)).toHaveLength(3), 30_000);
    const got = receiver.at(watcher.path).filter((d) => d.body.data.webhook_id === created.id);
    expect(got.map((d) => d.body.event).sort()).toEqual(['webhook.create', 'webhook.delete', 'webhook.update']);
    expect(got.every((d) => d.verified)).toBe(true);
    expect(JSON.stringify(got.map((d) => d.raw))).not.toContain('never-logged');

    // Admin webhooks' own changes are admin events too (the watcher sees its own creation's successors).
    const adminToken = await pat(admin, ADMIN_SCOPES);
    await call(adminToken, 'PATCH', `${ADMIN_BASE}/${watcher.id}`, { name: 'watcher' });
    const own = await auditRecords(api.deps.store, { 'data.webhook_id': watcher.id });
    expect(own.map((r) => [r.event, r.data.scope, r.data.owner_user_id])).toEqual([
      ['webhook.create', 'admin', admin._id],
      ['webhook.update', 'admin', admin._id],
    ]);
    await eventually(
      () => expect(receiver.at(watcher.path).some((d) => d.body.event === 'webhook.update' && d.body.data.webhook_id === watcher.id)).toBe(true),
      30_000,
    );
  }, 90_000);
});
