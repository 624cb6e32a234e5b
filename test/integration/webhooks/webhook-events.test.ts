// The sources of webhook events, end to end: each real user action over HTTP
// (app API, /account/apps pages, dynamic registration, profile form and
// profile API) and the operator CLI's `config set`, received by a real local
// receiver that verifies every signature. Checked: the event name (body and
// X-Keyflow-Event), its data (ids, names, changed fields), no secret value in
// any raw body, nothing for another user's webhooks, nothing when nothing
// changed, the audit log of admin events, and that the dispatcher finds a
// user's webhooks by `_id` lookups only.
import { generate, generateSecret } from 'otplib';
import { freePort } from '../../../tools/embedded/ports.js';
import { WEBHOOK_LIMITS } from '../../../lib/model/webhooks.js';
import { seal } from '../../../lib/security/kek.js';
import { createClient } from '../../../lib/store/clients.js';
import { createPersonalAccessToken } from '../../../lib/store/personal-access-tokens.js';
import { getSiteSettings } from '../../../lib/store/settings.js';
import { auditRecords } from '../../support/audit.js';
import { webhookOutbox } from '../../../lib/store/webhook-outbox.js';
import { commandFilters } from '../../support/command-filters.js';
import { useTestApi, eventually, type Json } from '../../support/harness.js';
import { expectDeliveriesStartedFor } from '../../support/deliveries.js';
import { requestJson } from '../../support/http.js';
import { runCli } from '../../support/cli.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { withPkce, withVerifier } from '../../../tools/fixtures/pkce.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { addHook, type ReceivedDelivery, startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';
import { testDatabase } from '../../support/database.js';

const database = testDatabase('webhook_events');
const PASSWORD = 'webhook events test password';
let receiver: WebhookReceiver;

const api = useTestApi(database.env);
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver.close();
});

let n = 0;
/** A webhook on its own receiver path (user webhooks need `userId`). */
async function hook(events: string[], userId: string | null): Promise<string> {
  const path = `/events-${++n}`;
  await addHook(api.deps, receiver, path, { ownerUserId: userId, name: `hook ${n}`, events });
  return path;
}

/** Waits until `path` has received `count` deliveries; checks each is signed and carries its event header. */
async function received(path: string, count: number): Promise<ReceivedDelivery[]> {
  await eventually(() => expect(receiver.at(path).length).toBeGreaterThanOrEqual(count), 30_000);
  const got = receiver.at(path);
  for (const d of got) {
    expect(d.verified).toBe(true);
    expect(d.headers['x-keyflow-event']).toBe(d.body.event);
  }
  return got;
}

/** A user with three webhooks (specific, wildcard) and a stranger with a wildcard webhook. */
async function userWithHooks(events = ['app.created', 'app.updated', 'app.deleted', 'profile.updated']) {
  const { email, user } = await newUser(api.deps, { prefix: 'events', password: PASSWORD, name: 'Events User' });
  const { user: stranger } = await newUser(api.deps, { prefix: 'stranger', password: PASSWORD });
  const pat = async (scope: string[]) => (await createPersonalAccessToken(api.deps.store, user._id, { name: 't', scope, expiresInDays: 1 })).token;
  return {
    email,
    user,
    pat,
    specific: await hook(events, user._id),
    wildcard: await hook(['*'], user._id),
    strangerId: stranger._id,
    stranger: await hook(['*'], stranger._id),
  };
}

const call = (token: string, method: string, path: string, body?: unknown) => requestJson(`${api.issuer}${path}`, method, { token, body });

const events = (got: ReceivedDelivery[]) => got.map((d) => d.body.event);
/**
 * Checks that the user's two webhooks got `expected` deliveries between them
 * and nothing more was started for them or the stranger (rather than waiting
 * for deliveries that must not happen).
 */
async function expectNoStrayDeliveries(u: { user: { _id: string }; strangerId: string }, expected: number): Promise<void> {
  await api.deps.events.idle();
  await expectDeliveriesStartedFor(api.deps.temporal.client, u.user._id, expected);
  await expectDeliveriesStartedFor(api.deps.temporal.client, u.strangerId, 0);
}

describe('app events from the app API', () => {
  it('app.created, app.updated (incl. a rotation) and app.deleted reach the owner, with no secret in any body', async () => {
    const u = await userWithHooks();
    const rw = await u.pat(['apps:read', 'apps:write']);
    const created = await call(rw, 'POST', '/api/oauth/me/apps', { name: 'Evented', redirect_uris: ['https://evented.example/cb'] });
    expect(created.res.status).toBe(201);
    const id = created.body.client_id as string;
    const secrets = [created.body.client_secret as string];
    let got = await received(u.specific, 1);
    expect(got[0]!.body).toEqual({ event: 'app.created', timestamp: expect.any(Number), data: { app_id: id, name: 'Evented' } });

    // Changing redirect URIs and rotating the secret need a recent second factor: an OAuth token with acr=mfa.
    const totp = generateSecret();
    await api.deps.store.users.updateOne(
      { _id: u.user._id },
      { $set: { totp: { secret: seal(api.deps.kek, Buffer.from(totp), `totp:${u.user._id}`), lastTimeStep: null, enabledAt: new Date() } } },
    );
    const mfaToken = await oauthToken(u.email, totp);
    const patched = await call(mfaToken, 'PATCH', `/api/oauth/me/apps/${id}`, {
      name: 'Evented v2',
      redirect_uris: ['https://evented.example/cb', 'https://evented.example/cb2'],
    });
    expect(patched.res.status).toBe(200);
    got = await received(u.specific, 2);
    expect(got[1]!.body.event).toBe('app.updated');
    expect(got[1]!.body.data).toEqual({ app_id: id, name: 'Evented v2', changed: ['name', 'redirect_uris'] });
    // A PATCH that changes nothing emits nothing.
    expect((await call(rw, 'PATCH', `/api/oauth/me/apps/${id}`, { name: 'Evented v2' })).res.status).toBe(200);

    const rotated = await call(mfaToken, 'POST', `/api/oauth/me/apps/${id}/secret`);
    expect(rotated.res.status).toBe(200);
    secrets.push(rotated.body.client_secret as string);
    got = await received(u.specific, 3);
    expect(got[2]!.body.event).toBe('app.updated');
    expect(got[2]!.body.data).toEqual({ app_id: id, name: 'Evented v2', changed: ['client_secret'] });

    expect((await call(rw, 'DELETE', `/api/oauth/me/apps/${id}`)).res.status).toBe(204);
    got = await received(u.specific, 4);
    expect(got[3]!.body).toEqual({ event: 'app.deleted', timestamp: expect.any(Number), data: { app_id: id, name: 'Evented v2' } });

    // The wildcard webhook got the same four; the stranger's webhook nothing; no secret anywhere.
    expect(events(await received(u.wildcard, 4))).toEqual(['app.created', 'app.updated', 'app.updated', 'app.deleted']);
    await expectNoStrayDeliveries(u, 8);
    expect(receiver.at(u.specific)).toHaveLength(4);
    expect(receiver.at(u.stranger)).toHaveLength(0);
    for (const d of [...receiver.at(u.specific), ...receiver.at(u.wildcard)]) for (const s of secrets) expect(d.raw).not.toContain(s);
  }, 90_000);
});

describe('app events from the /account/apps pages', () => {
  it('create, edit, rotate and delete each emit their event; no secret in any body', async () => {
    const u = await userWithHooks(['app.created', 'app.updated', 'app.deleted']);
    const agent = new HttpUser(api.issuer);
    await agent.signIn(await agent.get('/login'), u.email, PASSWORD);
    let page = await (await agent.get('/account/apps')).res.text();
    const created = await (await agent.submit(page, '/account/apps', { name: 'Page app', redirect_uris: 'https://page-events.example/cb' })).res.text();
    const id = /data-client-id>([^<]+)</.exec(created)![1]!;
    const secrets = [/data-client-secret>([^<]+)</.exec(created)![1]!];
    let got = await received(u.specific, 1);
    expect(got[0]!.body.data).toEqual({ app_id: id, name: 'Page app' });

    const edit = await (await agent.get(`/account/apps/${id}/edit`)).res.text();
    await agent.submit(edit, `/account/apps/${id}/edit`, {
      name: 'Page app',
      description: 'now described',
      redirect_uris: 'https://page-events.example/cb',
      backchannel_logout_uri: 'https://page-events.example/bcl',
    });
    got = await received(u.specific, 2);
    expect(got[1]!.body.event).toBe('app.updated');
    expect(got[1]!.body.data).toEqual({ app_id: id, name: 'Page app', changed: ['description', 'backchannel_logout_uri'] });

    page = await (await agent.get('/account/apps')).res.text();
    const rotated = await (await agent.submit(page, `/account/apps/${id}/secret`, {})).res.text();
    secrets.push(/data-client-secret>([^<]+)</.exec(rotated)![1]!);
    got = await received(u.specific, 3);
    expect(got[2]!.body).toMatchObject({ event: 'app.updated', data: { app_id: id, name: 'Page app', changed: ['client_secret'] } });

    page = await (await agent.get('/account/apps')).res.text();
    await agent.submit(page, `/account/apps/${id}/delete`, {});
    got = await received(u.specific, 4);
    expect(got[3]!.body).toMatchObject({ event: 'app.deleted', data: { app_id: id, name: 'Page app' } });

    expect(events(await received(u.wildcard, 4))).toEqual(['app.created', 'app.updated', 'app.updated', 'app.deleted']);
    await expectNoStrayDeliveries(u, 8);
    expect(receiver.at(u.stranger)).toHaveLength(0);
    for (const d of [...receiver.at(u.specific), ...receiver.at(u.wildcard)]) for (const s of secrets) expect(d.raw).not.toContain(s);
  }, 90_000);
});

describe('app events from dynamic registration (RFC 7591/7592)', () => {
  it('registering, updating and deleting a client emit to the owner (the initial access token user)', async () => {
    const u = await userWithHooks(['app.created', 'app.updated', 'app.deleted']);
    const reg = await call(await u.pat(['apps:write']), 'POST', '/api/oauth/register', {
      client_name: 'Registered',
      redirect_uris: ['https://registered-events.example/cb'],
      scope: 'openid',
    });
    expect(reg.res.status).toBe(201);
    const doc = reg.body;
    let got = await received(u.specific, 1);
    expect(got[0]!.body).toMatchObject({ event: 'app.created', data: { app_id: doc.client_id, name: 'Registered' } });

    const uri = new URL(doc.registration_client_uri as string).pathname;
    const read = (await call(doc.registration_access_token, 'GET', uri)).body;
    const put = await call(doc.registration_access_token, 'PUT', uri, { ...read, client_name: 'Registered v2', scope: 'openid profile' });
    expect(put.res.status).toBe(200);
    got = await received(u.specific, 2);
    expect(got[1]!.body).toMatchObject({ event: 'app.updated', data: { app_id: doc.client_id, name: 'Registered v2', changed: ['name', 'allowed_scopes'] } });

    expect((await call(doc.registration_access_token, 'DELETE', uri)).res.status).toBe(204);
    got = await received(u.specific, 3);
    expect(got[2]!.body).toMatchObject({ event: 'app.deleted', data: { app_id: doc.client_id, name: 'Registered v2' } });

    await received(u.wildcard, 3);
    await expectNoStrayDeliveries(u, 6);
    expect(receiver.at(u.stranger)).toHaveLength(0);
    for (const d of [...receiver.at(u.specific), ...receiver.at(u.wildcard)]) {
      expect(d.raw).not.toContain(doc.client_secret);
      expect(d.raw).not.toContain(doc.registration_access_token);
    }
  }, 90_000);
});

describe('profile.updated', () => {
  it('comes from the profile API with the fields that changed, and not when nothing changed', async () => {
    const u = await userWithHooks(['profile.updated']);
    const token = await u.pat(['profile:write']);
    expect((await call(token, 'PATCH', '/api/oauth/me/profile', { name: 'Renamed User' })).res.status).toBe(200);
    const got = await received(u.specific, 1);
    expect(got[0]!.body).toEqual({ event: 'profile.updated', timestamp: expect.any(Number), data: { user_id: u.user._id, changed: ['name'] } });
    // The same name again: nothing changed, nothing sent.
    expect((await call(token, 'PATCH', '/api/oauth/me/profile', { name: 'Renamed User' })).res.status).toBe(200);
    expect(events(await received(u.wildcard, 1))).toEqual(['profile.updated']);
    await expectNoStrayDeliveries(u, 2);
    expect(receiver.at(u.specific)).toHaveLength(1);
    expect(receiver.at(u.wildcard)).toHaveLength(1);
    expect(receiver.at(u.stranger)).toHaveLength(0);
  }, 60_000);

  it('names the changed fields by their claim names', async () => {
    const u = await userWithHooks(['profile.updated']);
    const token = await u.pat(['profile:write']);
    const change = { given_name: 'Events', phone_number: '+1 555 0100', address: { locality: 'Lyon' }, zoneinfo: 'Europe/Paris' };
    expect((await call(token, 'PATCH', '/api/oauth/me/profile', change)).res.status).toBe(200);
    const got = await received(u.specific, 1);
    expect(got[0]!.body.data).toEqual({ user_id: u.user._id, changed: ['given_name', 'zoneinfo', 'phone_number', 'address'] });
  }, 60_000);

  it('finds the user’s webhooks with `_id` lookups only (each of the user’s slots, then each webhook they name)', async () => {
    const u = await userWithHooks(['profile.updated']);
    const token = await u.pat(['profile:write']);
    const filters = await commandFilters(api.deps.store, ['webhooks', 'webhook_slots'], async () => {
      expect((await call(token, 'PATCH', '/api/oauth/me/profile', { name: 'Looked Up By Id' })).res.status).toBe(200);
      await received(u.specific, 1);
      await received(u.wildcard, 1);
      await api.deps.events.idle();
    });
    expect(filters.length).toBeGreaterThanOrEqual(WEBHOOK_LIMITS.user + 2);
    for (const f of filters) {
      expect(Object.keys(f as object)).toEqual(['_id']);
      expect(typeof (f as { _id: unknown })._id).toBe('string');
    }
  }, 60_000);

  it('comes from the account page form', async () => {
    const u = await userWithHooks(['profile.updated']);
    const agent = new HttpUser(api.issuer);
    await agent.signIn(await agent.get('/login'), u.email, PASSWORD);
    let page = await (await agent.get('/account')).res.text();
    page = await (await agent.submit(page, '/account/profile', { name: 'Form Name', picture: 'https://pics.example/me.png' })).res.text();
    expect(page).toContain('Saved.');
    const got = await received(u.specific, 1);
    expect(got[0]!.body.data).toEqual({ user_id: u.user._id, changed: ['name', 'picture'] });
    // Saving the form unchanged emits nothing.
    await agent.submit(page, '/account/profile', { name: 'Form Name', picture: 'https://pics.example/me.png' });
    await received(u.wildcard, 1);
    await expectNoStrayDeliveries(u, 2);
    expect(receiver.at(u.specific)).toHaveLength(1);
    expect(receiver.at(u.stranger)).toHaveLength(0);
  }, 60_000);
});

describe('admin.config.update from the operator CLI', () => {
  const env = database.env;

  it('reaches admin webhooks and the audit log; a secret setting’s value appears in neither', async () => {
    const specific = await hook(['admin.config.update'], null);
    const wildcard = await hook(['*'], null);
    const userHooks = await userWithHooks();
    const before = (await getSiteSettings(api.deps.store)).pow_difficulty;
    const difficulty = before === 20 ? 21 : 20;
    const set = await runCli(['config', 'set', 'pow_difficulty', String(difficulty)], env);
    expect(set.stderr).toBe('');
    expect(set.code).toBe(0);
    let got = await received(specific, 1);
    expect(got[0]!.body).toEqual({
      event: 'admin.config.update',
      timestamp: expect.any(Number),
      data: { changed: ['pow_difficulty'], values: { pow_difficulty: difficulty }, actor: { type: 'operator' } },
    });

    const secretValue = `captcha-secret-${Date.now().toString(36)}`;
    const secretSet = await runCli(['config', 'set', 'captcha_secret_key', secretValue], env);
    expect(secretSet.code).toBe(0);
    expect(secretSet.stdout).not.toContain(secretValue);
    got = await received(specific, 2);
    expect(got[1]!.body.data).toEqual({ changed: ['captcha_secret_key'], values: {}, actor: { type: 'operator' } });
    expect(got[1]!.raw).not.toContain(secretValue);
    expect(events(await received(wildcard, 2))).toEqual(['admin.config.update', 'admin.config.update']);

    const records = (await auditRecords(api.deps.store, { event: 'config.changed' })).reverse().slice(0, 2);
    expect(records.map((r) => r.data)).toEqual([
      { changed: ['captcha_secret_key'], values: {} },
      { changed: ['pow_difficulty'], values: { pow_difficulty: difficulty } },
    ]);
    for (const r of records) expect(r).toMatchObject({ stream: 'admin', actor: { type: 'operator' } });
    expect(JSON.stringify(await auditRecords(api.deps.store, {}))).not.toContain(secretValue);

    // Setting the value it already has changes nothing: no event, no audit record.
    const count = (await auditRecords(api.deps.store, {})).length;
    expect((await runCli(['config', 'set', 'pow_difficulty', String(difficulty)], env)).code).toBe(0);
    expect((await auditRecords(api.deps.store, {})).length).toBe(count);
    expect(receiver.at(specific)).toHaveLength(2);
    // A user's webhooks get no admin event: none was started for them.
    await expectDeliveriesStartedFor(api.deps.temporal.client, userHooks.user._id, 0);
    expect(receiver.at(userHooks.wildcard)).toHaveLength(0);
  }, 90_000);

  it('succeeds while Temporal is unreachable: the event waits in the outbox and the sweep delivers it', async () => {
    const path = await hook(['admin.config.update'], null);
    const before = (await getSiteSettings(api.deps.store)).sudo_mode_ttl_minutes;
    const minutes = before === 7 ? 8 : 7;
    const set = await runCli(['config', 'set', 'sudo_mode_ttl_minutes', String(minutes)], { ...env, TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` });
    expect(set.code).toBe(0);
    expect(set.stderr).not.toMatch(/error|warn/i);
    expect((await getSiteSettings(api.deps.store)).sudo_mode_ttl_minutes).toBe(minutes);
    const waiting = await webhookOutbox(api.deps.store).find({ name: 'admin.config.update' }).toArray();
    expect(waiting.map((e) => e.data)).toContainEqual({ changed: ['sudo_mode_ttl_minutes'], values: { sudo_mode_ttl_minutes: minutes } });
    // The api's sweep (every 15 s, events older than 10 s) — run now.
    await api.deps.events.sweep(0);
    const [got] = await received(path, 1);
    expect(got!.body.data).toEqual({ changed: ['sudo_mode_ttl_minutes'], values: { sudo_mode_ttl_minutes: minutes }, actor: { type: 'operator' } });
  }, 90_000);
});

/** An OAuth access token (apps:read apps:write) from a sign-in with a second factor (acr=mfa). */
async function oauthToken(email: string, totpSecret: string): Promise<string> {
  const redirect = 'https://events-rp.example/cb';
  const { client, clientSecret } = await createClient(api.deps.store, {
    name: 'Events RP',
    redirectUris: [{ type: 'equals', value: redirect }],
    allowedScopes: ['openid', 'apps:read', 'apps:write'],
    idTokenSignedResponseAlg: 'RS256',
  });
  const agent = new HttpUser(api.issuer);
  let step = await agent.get(
    `/api/oauth/authorize?${new URLSearchParams(withPkce({ response_type: 'code', client_id: client._id, redirect_uri: redirect, scope: 'openid apps:read apps:write', acr_values: 'mfa' }))}`,
  );
  if (step.url.includes('/login')) step = await agent.signIn(step, email, PASSWORD);
  if (step.url.includes('/login/second-factor'))
    step = await agent.submit(await step.res.text(), '/login/second-factor', { code: await generate({ secret: totpSecret }) });
  if (step.url.includes('/consent')) step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
  const res = await fetch(`${api.issuer}/api/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(client._id)}:${encodeURIComponent(clientSecret!)}`).toString('base64')}`,
    },
    body: new URLSearchParams(withVerifier({ grant_type: 'authorization_code', code: step.external!.searchParams.get('code')!, redirect_uri: redirect })),
  });
  return ((await res.json()) as Json).access_token;
}
