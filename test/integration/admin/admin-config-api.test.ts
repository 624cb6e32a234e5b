// The site configuration admin API (/api/oauth/me/admin/config) against a real
// api and a verifying admin webhook receiver: GET shows every setting with
// secrets masked; PATCH sets several at once (a secret sealed with the KEK),
// checks every key and value before writing any, and emits one
// admin.config.update (actor in the audit log, a secret's value never in it).
// Guards: admin:* and site:* scopes, a non-admin 404 not_found, a missing
// scope 403 insufficient_scope, bad input a JSON 400 naming the key.
import { newId } from '../../../lib/security/secrets.js';
import { auditRecords } from '../../support/audit.js';
import { getSiteSettings, siteSecret } from '../../../lib/store/settings.js';
import type { UserDoc } from '../../../lib/model/users.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { useTestApi, eventually } from '../../support/harness.js';
import { expectApiError, requestJson } from '../../support/http.js';
import { addHook, startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';
import { mintAccessToken } from '../../support/minted-token.js';
import { testDatabase } from '../../support/database.js';

const BASE = '/api/oauth/me/admin/config';
const PASSWORD = 'admin config test password';
const HOOK = '/admin-config';
let receiver: WebhookReceiver;
let admin: UserDoc;

const api = useTestApi(testDatabase('admin_config').env, { beforeStop: (running) => running.deps.events.idle() });
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  admin = (await newUser(api.deps, { prefix: 'config-admin', password: PASSWORD, admin: true })).user;
  await addHook(api.deps, receiver, HOOK, { name: 'config changes', events: ['admin.config.update'] });
}, 60_000);
afterAll(async () => {
  await receiver.close();
});

const mintedToken = (user: UserDoc, scope: string[]) => mintAccessToken(api, user._id, scope);

const call = (token: string | null, method: string, body?: unknown, contentType?: string) =>
  requestJson(`${api.deps.config.issuer}${BASE}`, method, { token, body, contentType });

it('reads and changes the settings; secrets sealed and masked; one admin.config.update with the actor', async () => {
  const token = await mintedToken(admin, ['admin:config:read', 'admin:config:write']);
  const before = await call(token, 'GET');
  expect(before.res.status).toBe(200);
  expect(before.body).toMatchObject({ sudo_mode_ttl_minutes: 0, captcha_provider: 'none', captcha_secret_key: '', pow_difficulty: 18 });

  const SECRET = `captcha-secret-${newId()}`;
  const patched = await call(token, 'PATCH', { sudo_mode_ttl_minutes: 15, require_captcha_for_2fa: true, captcha_secret_key: SECRET });
  expect(patched.res.status).toBe(200);
  expect(patched.body).toMatchObject({ sudo_mode_ttl_minutes: 15, require_captcha_for_2fa: true, captcha_secret_key: '********' });
  expect(patched.text).not.toContain(SECRET);
  expect((await call(token, 'GET')).body).toEqual(patched.body);
  expect(await siteSecret(api.deps.store, api.deps.kek, 'captcha_secret_key')).toBe(SECRET);
  expect(JSON.stringify(await api.deps.store.settings.findOne({ _id: 'site' }))).not.toContain(SECRET);

  await eventually(() => expect(receiver.at(HOOK)).toHaveLength(1), 30_000);
  const [got] = receiver.at(HOOK);
  expect(got!.verified).toBe(true);
  expect(got!.body).toEqual({
    event: 'admin.config.update',
    timestamp: expect.any(Number),
    data: {
      changed: ['sudo_mode_ttl_minutes', 'require_captcha_for_2fa', 'captcha_secret_key'],
      values: { sudo_mode_ttl_minutes: 15, require_captcha_for_2fa: true },
      actor: { type: 'user', user_id: admin._id, client_id: expect.any(String) },
    },
  });
  expect(got!.raw).not.toContain(SECRET);
  const records = await auditRecords(api.deps.store, { event: 'config.changed' });
  expect(records).toEqual([expect.objectContaining({ stream: 'admin', actor: expect.objectContaining({ type: 'user', userId: admin._id }) })]);
  expect(JSON.stringify(records)).not.toContain(SECRET);

  // The values it already has: 200, no event.
  expect((await call(token, 'PATCH', { sudo_mode_ttl_minutes: '15' })).res.status).toBe(200);
  // site:config:* reaches it too.
  const site = await mintedToken(admin, ['site:config:read', 'site:config:write']);
  expect((await call(site, 'PATCH', { pow_difficulty: 20 })).body.pow_difficulty).toBe(20);
  await eventually(() => expect(receiver.at(HOOK)).toHaveLength(2), 30_000);
  expect(receiver.at(HOOK)[1]!.body.data).toEqual({
    changed: ['pow_difficulty'],
    values: { pow_difficulty: 20 },
    actor: { type: 'user', user_id: admin._id, client_id: expect.any(String) },
  });
});

it('refuses bad keys and values before writing any; non-admins, missing scopes and bad bodies', async () => {
  const token = await mintedToken(admin, ['admin:config:read', 'admin:config:write']);
  const before = await getSiteSettings(api.deps.store);
  expectApiError(await call(token, 'PATCH', { pow_difficulty: 9, no_such_key: 1 }), 400, 'invalid_request', /no_such_key/);
  expectApiError(await call(token, 'PATCH', { pow_difficulty: 9, sudo_mode_ttl_minutes: 'ten' }), 400, 'invalid_request', /sudo_mode_ttl_minutes/);
  expectApiError(await call(token, 'PATCH', { captcha_provider: 'clippy' }), 400, 'invalid_request', /captcha_provider/);
  expectApiError(await call(token, 'PATCH', {}), 400, 'invalid_request');
  expectApiError(await call(token, 'PATCH', [1]), 400, 'invalid_request');
  expectApiError(await call(token, 'PATCH', '{"pow_difficulty": '), 400, 'invalid_request');
  expectApiError(await call(token, 'PATCH', 'pow_difficulty=9', 'application/x-www-form-urlencoded'), 400, 'invalid_request', /json/);
  expect(await getSiteSettings(api.deps.store)).toEqual(before);

  const nobody = (await newUser(api.deps, { prefix: 'config-nonadmin', password: PASSWORD })).user;
  const notAdmin = await mintedToken(nobody, ['admin:config:read', 'admin:config:write']);
  expectApiError(await call(notAdmin, 'GET'), 404, 'not_found');
  expectApiError(await call(notAdmin, 'PATCH', { pow_difficulty: 9 }), 404, 'not_found');
  const readOnly = await mintedToken(admin, ['admin:config:read', 'site:config:read']);
  expect((await call(readOnly, 'GET')).res.status).toBe(200);
  expectApiError(await call(readOnly, 'PATCH', { pow_difficulty: 9 }), 403, 'insufficient_scope');
  expectApiError(await call(await mintedToken(admin, ['admin:users:read']), 'GET'), 403, 'insufficient_scope');
  expect((await call(null, 'GET')).res.status).toBe(401);
  expect((await call(token, 'DELETE')).res.status).toBe(405);
  expect(await getSiteSettings(api.deps.store)).toEqual(before);
});
