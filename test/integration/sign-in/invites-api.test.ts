// Invitations and /signup against a real api: the admin API
// (/api/oauth/me/admin/invites) with scoped tokens, its refusals (non-admin,
// missing scope, bad input: JSON 4xx, never 500), the invite.create and
// invite.revoke events at a verifying admin webhook receiver (with the actor,
// never the token); the three registration modes; single use under 10
// concurrent sign-ups; an email-bound, an expired and a revoked invitation;
// password policy refusals; the sign-up rate limit.
import type { RunningApi } from '../../../api/server.js';
import { SIGN_UP_WINDOW_MS } from '../../../api/pages/signup.js';
import { hashSecret } from '../../../lib/security/secrets.js';
import { createPersonalAccessToken } from '../../../lib/store/personal-access-tokens.js';
import { setSiteSetting } from '../../../lib/store/settings.js';
import { findUserByEmail } from '../../../lib/store/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newUser, uniqueEmail } from '../../../tools/fixtures/users.js';
import { eventually, startTestApi, type Json } from '../../support/harness.js';
import { auditRecords } from '../../support/audit.js';
import { requestJson } from '../../support/http.js';
import { awayFromWindowEdge, countStatuses } from '../../support/limits.js';
import { addHook, startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';
import { testDatabase } from '../../support/database.js';

const BASE = '/api/oauth/me/admin/invites';
const ALL = ['admin:invites:read', 'admin:invites:create', 'admin:invites:delete'];
const PASSWORD = 'a long signup passphrase 7401';
let api: RunningApi;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  api = await startTestApi(testDatabase('invites').env);
}, 120_000);
afterAll(async () => {
  await api?.deps.events.idle();
  await api?.stop();
  await receiver?.close();
});

async function tokenFor(scope: string[], admin = true) {
  const { user } = await newUser(api.deps, { prefix: 'invites-admin', password: 'invites admin password', admin });
  return { user, token: (await createPersonalAccessToken(api.deps.store, user._id, { name: 't', scope, expiresInDays: 1 })).token };
}

const call = (token: string, method: string, path = '', body?: unknown, contentType?: string) =>
  requestJson(`${api.url}${BASE}${path}`, method, { token, body, contentType });

const mode = (value: 'open' | 'invite' | 'closed') => setSiteSetting(api.deps.store, 'registration', value);

/** An invitation through the API; its token from the link. */
async function invite(body: Record<string, unknown> = {}) {
  const { token } = await tokenFor(['admin:invites:create']);
  const created = await call(token, 'POST', '', body);
  expect(created.res.status).toBe(201);
  return { id: created.body.id as string, link: created.body.link as string, token: new URL(created.body.link).searchParams.get('invite')! };
}

/** The sign-up form at `path` in a fresh browser, and a submit of it. */
async function signupForm(path: string) {
  const browser = new HttpUser(api.url);
  const page = await browser.request(path);
  const html = await page.text();
  const submit = (fields: Record<string, string>) => browser.submit(html, '/signup', fields);
  return { browser, page, html, submit };
}

const fields = (email: string, extra: Record<string, string> = {}) => ({ email, name: 'New Person', password: PASSWORD, confirm: PASSWORD, ...extra });

describe('admin API', () => {
  it('creates (link once, token only hashed), lists and revokes; events reach an admin webhook with the actor, never the token', async () => {
    const path = '/admin-invites';
    await addHook(api.deps, receiver, path, { name: 'invites', events: ['invite.create', 'invite.revoke'] });
    const { user, token } = await tokenFor(ALL);
    const email = uniqueEmail('invitee');
    const created = await call(token, 'POST', '', { email: email.toUpperCase(), role: 'admin', expires_in_days: 3 });
    expect(created.res.status).toBe(201);
    expect(created.body).toMatchObject({
      email,
      role: 'admin',
      state: 'pending',
      used_by: null,
      revoked_at: null,
      created_by: { type: 'user', user_id: user._id, client_id: expect.any(String) },
    });
    const days = (Date.parse(created.body.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(2.9);
    expect(days).toBeLessThanOrEqual(3);
    const link = new URL(created.body.link);
    expect(`${link.origin}${link.pathname}`).toBe(`${api.url}/signup`);
    const secretToken = link.searchParams.get('invite')!;
    const stored = await api.deps.store.invites.findOne({ _id: created.body.id });
    expect(stored!.tokenHash).toBe(hashSecret(secretToken));
    expect(JSON.stringify(stored)).not.toContain(secretToken);

    const listed = await call(token, 'GET', '?limit=500');
    expect(listed.res.status).toBe(200);
    const mine = listed.body.invites.find((i: Json) => i.id === created.body.id);
    expect(mine).toMatchObject({ email, state: 'pending' });
    expect(mine.link).toBeUndefined();
    expect(listed.text).not.toContain(secretToken);

    const revoked = await call(token, 'DELETE', `/${created.body.id}`);
    expect(revoked.res.status).toBe(204);
    expect((await call(token, 'DELETE', `/${created.body.id}`)).res.status).toBe(204);
    expect((await call(token, 'GET', '?limit=500')).body.invites.find((i: Json) => i.id === created.body.id).state).toBe('revoked');

    await eventually(() => expect(receiver.at(path).length).toBe(2), 30_000);
    const got = receiver.at(path).sort((a, b) => a.body.event.localeCompare(b.body.event));
    for (const d of got) {
      expect(d.verified).toBe(true);
      expect(d.raw).not.toContain(secretToken);
    }
    expect(got.map((d) => [d.body.event, d.body.data])).toEqual([
      ['invite.create', { invite_id: created.body.id, email, role: 'admin', expires_at: created.body.expires_at, actor: created.body.created_by }],
      ['invite.revoke', { invite_id: created.body.id, actor: created.body.created_by }],
    ]);
    const audit = await auditRecords(api.deps.store, { 'data.invite_id': created.body.id });
    expect(audit.map((r) => [r.event, r.actor.userId])).toEqual(
      expect.arrayContaining([
        ['invite.create', user._id],
        ['invite.revoke', user._id],
      ]),
    );
    expect(JSON.stringify(audit)).not.toContain(secretToken);
    // The webhook payload names the invitee; the audit trail keeps no email.
    expect(JSON.stringify(audit)).not.toContain(email);
  });

  it('defaults: role user, 7 days, no email; an empty body is fine', async () => {
    const { token } = await tokenFor(['admin:invites:create']);
    const created = await fetch(`${api.url}${BASE}`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(created.status).toBe(201);
    const body = (await created.json()) as Json;
    expect(body).toMatchObject({ email: null, role: 'user', state: 'pending' });
    expect(Math.round((Date.parse(body.expires_at) - Date.now()) / 86_400_000)).toBe(7);
  });

  it('refuses a non-admin (404 not_found), a missing scope (insufficient_scope), bad input (400 naming the field), an unknown id (404); never 500', async () => {
    const notAdmin = await tokenFor(ALL, false);
    for (const [method, body] of [['GET'], ['POST', {}], ['DELETE']] as const) {
      const r = await call(notAdmin.token, method, method === 'DELETE' ? '/x' : '', body);
      expect([r.res.status, r.body.error]).toEqual([404, 'not_found']);
    }
    const readOnly = await tokenFor(['admin:invites:read']);
    expect((await call(readOnly.token, 'POST', '', {})).body.error).toBe('insufficient_scope');
    expect((await call(readOnly.token, 'DELETE', '/x')).body.error).toBe('insufficient_scope');
    const createOnly = await tokenFor(['admin:invites:create']);
    expect((await call(createOnly.token, 'GET')).body.error).toBe('insufficient_scope');

    const { token } = await tokenFor(ALL);
    const bad: [unknown, RegExp, string?][] = [
      [{ email: 'not-an-email' }, /email/],
      [{ role: 'owner' }, /role/],
      [{ expires_in_days: 91 }, /expires_in_days/],
      [{ expires_in_days: 0 }, /expires_in_days/],
      [{ expires_in_days: '3' }, /expires_in_days/],
      [{ extra: 1 }, /extra|unrecognized/i],
      [[1, 2], /object|expected/i],
      ['{"email": ', /read/],
      ['email=a@b.c', /json/i, 'application/x-www-form-urlencoded'],
    ];
    for (const [body, mentions, type] of bad) {
      const r = await call(token, 'POST', '', body, type);
      expect({ body, status: r.res.status, error: r.body.error }).toEqual({ body, status: 400, error: 'invalid_request' });
      expect(r.body.error_description).toMatch(mentions);
    }
    for (const q of ['?limit=0', '?limit=501', '?limit=x', '?offset=-1']) expect((await call(token, 'GET', q)).res.status).toBe(400);
    expect((await call(token, 'DELETE', '/no-such-invite')).res.status).toBe(404);
    expect((await call(token, 'DELETE', `/${'x'.repeat(500)}`)).res.status).toBe(404);
    expect((await call(token, 'PUT', '')).res.status).toBe(405);
  });
});

describe('sign-up', () => {
  afterAll(() => mode('invite'));

  it('invite mode (the default): refused without an invitation; with one, the account gets the role, is signed in and lands on /account', async () => {
    await api.deps.store.settings.updateOne({ _id: 'site' }, { $unset: { 'values.registration': '' } });
    const none = await signupForm('/signup');
    expect(none.page.status).toBe(403);
    expect(none.html).toContain('by invitation only');
    const login = await (await fetch(`${api.url}/login`)).text();
    expect(login).not.toContain('Create an account');

    const inv = await invite({ role: 'admin' });
    const loginWithInvite = await (await fetch(`${api.url}/login?invite=${inv.token}`)).text();
    expect(loginWithInvite).toContain(`href="/signup?invite=${inv.token}"`);
    const form = await signupForm(`/signup?invite=${inv.token}`);
    expect(form.page.status).toBe(200);
    const email = uniqueEmail('signup-invited');
    const done = await form.submit(fields(email, { username: 'Invited-' + Date.now().toString(36) }));
    expect(new URL(done.url).pathname).toBe('/account');
    expect(done.res.status).toBe(200);
    const user = await findUserByEmail(api.deps.store, email);
    expect(user).toMatchObject({ role: 'admin', emailVerified: false, name: 'New Person' });
    expect(user!.username).toMatch(/^invited-/);
    const stored = await api.deps.store.invites.findOne({ _id: inv.id });
    expect(stored).toMatchObject({ usedBy: user!._id });

    // Used: the same link again says so.
    const again = await signupForm(`/signup?invite=${inv.token}`);
    expect(again.page.status).toBe(403);
    expect(again.html).toContain('already been used');
  });

  it('consumes an invitation once under 10 concurrent sign-ups', async () => {
    await mode('invite');
    const inv = await invite();
    const { browser, html } = await signupForm(`/signup?invite=${inv.token}`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    const emails = Array.from({ length: 10 }, (_, i) => uniqueEmail(`race-${i}`));
    const answers = await Promise.all(
      emails.map((email) =>
        browser.request('/signup', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ csrf, invite: inv.token, ...fields(email) }),
        }),
      ),
    );
    // Refused at the claim, or (arriving later) at the invitation's state: the same 403 page either way.
    expect(countStatuses(answers.map((r) => r.status))).toEqual({ 303: 1, 403: 9 });
    for (const r of answers.filter((a) => a.status === 403)) expect(await r.text()).toContain('This invitation has already been used.');
    const created = (await Promise.all(emails.map((e) => findUserByEmail(api.deps.store, e)))).filter(Boolean);
    expect(created).toHaveLength(1);
    expect((await api.deps.store.invites.findOne({ _id: inv.id }))!.usedBy).toBe(created[0]!._id);
  });

  it('an invitation with an email refuses another email and gives a verified email; an expired and a revoked one are refused in plain words', async () => {
    await mode('invite');
    const email = uniqueEmail('bound');
    const bound = await invite({ email });
    const form = await signupForm(`/signup?invite=${bound.token}`);
    expect(form.html).toMatch(new RegExp(`id="email"[^>]*value="${email}" readonly`));
    const wrong = await form.submit(fields(uniqueEmail('other')));
    expect(wrong.res.status).toBe(400);
    expect(await wrong.res.text()).toContain('This invitation is for a different email address.');
    const right = await form.submit(fields(email));
    expect(new URL(right.url).pathname).toBe('/account');
    expect(await findUserByEmail(api.deps.store, email)).toMatchObject({ emailVerified: true, role: 'user' });

    const expired = await invite();
    await api.deps.store.invites.updateOne({ _id: expired.id }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    const e = await signupForm(`/signup?invite=${expired.token}`);
    expect(e.page.status).toBe(403);
    expect(e.html).toContain('This invitation has expired.');

    const revoked = await invite();
    const form2 = await signupForm(`/signup?invite=${revoked.token}`);
    const { token } = await tokenFor(['admin:invites:delete']);
    expect((await call(token, 'DELETE', `/${revoked.id}`)).res.status).toBe(204);
    const late = await form2.submit(fields(uniqueEmail('late')));
    expect(late.res.status).toBe(403);
    expect(await late.res.text()).toContain('This invitation was withdrawn.');

    const unknown = await signupForm(`/signup?invite=${'A'.repeat(43)}`);
    expect(unknown.page.status).toBe(403);
    expect(unknown.html).toContain('This invitation link is not valid.');
  });

  it('open mode: anyone signs up (email unverified); closed mode refuses everyone, invitations too', async () => {
    await mode('open');
    expect(await (await fetch(`${api.url}/login`)).text()).toContain('href="/signup"');
    const open = await signupForm('/signup?next=/account/sessions');
    const email = uniqueEmail('open');
    const done = await open.submit(fields(email));
    expect(new URL(done.url).pathname).toBe('/account/sessions');
    expect(await findUserByEmail(api.deps.store, email)).toMatchObject({ role: 'user', emailVerified: false });
    const taken = await open.submit(fields(email));
    expect(taken.res.status).toBe(409);
    expect(await taken.res.text()).toContain('An account with this email address already exists.');

    await mode('closed');
    const inv = await invite();
    for (const path of ['/signup', `/signup?invite=${inv.token}`]) {
      const closed = await signupForm(path);
      expect(closed.page.status).toBe(403);
      expect(closed.html).toContain('does not accept new accounts');
    }
    expect(await (await fetch(`${api.url}/login?invite=${inv.token}`)).text()).not.toContain('Create an account');
    // A form loaded before the site closed is refused too, and the invitation stays unused.
    await mode('invite');
    const before = await signupForm(`/signup?invite=${inv.token}`);
    await mode('closed');
    const refused = await before.submit(fields(uniqueEmail('closed')));
    expect(refused.res.status).toBe(403);
    expect((await api.deps.store.invites.findOne({ _id: inv.id }))!.usedAt).toBeNull();
  });

  it('password policy, mismatched passwords and a forged CSRF token are refused on the page; a taken email gives the invitation back', async () => {
    await mode('invite');
    const inv = await invite();
    const form = await signupForm(`/signup?invite=${inv.token}`);
    const email = uniqueEmail('policy');
    const cases: [Record<string, string>, string][] = [
      [{ password: 'short', confirm: 'short' }, 'The password must be at least 12 characters.'],
      [{ password: email, confirm: email }, 'The password must not be your email address.'],
      [{ password: 'Password2024!', confirm: 'Password2024!' }, 'The password is too common'],
      [{ confirm: 'something else entirely' }, 'The two passwords are not the same.'],
      [{ name: '' }, 'Enter your name.'],
      [{ username: 'no spaces allowed' }, 'username: must be'],
    ];
    for (const [extra, message] of cases) {
      const r = await form.submit(fields(email, extra));
      expect(r.res.status).toBe(400);
      const page = await r.res.text();
      expect(page).toContain(message);
      expect(page).toContain(`name="invite" value="${inv.token}"`);
    }
    const forged = await form.browser.request('/signup', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: 'forged', invite: inv.token, ...fields(email) }),
    });
    expect(forged.status).toBe(400);
    const expired = await forged.text();
    expect(expired).toContain('Your session expired');
    expect(expired).toContain(`name="invite" value="${inv.token}"`);

    const existing = await newUser(api.deps, { prefix: 'exists', password: PASSWORD });
    const taken = await form.submit(fields(existing.email));
    expect(taken.res.status).toBe(409);
    // Given back: the same link still works.
    const ok = await form.submit(fields(email));
    expect(new URL(ok.url).pathname).toBe('/account');
    expect(await api.deps.store.users.countDocuments({ email })).toBe(1);
  });

  it('escapes what it shows back', async () => {
    await mode('open');
    const form = await signupForm('/signup');
    const r = await form.submit(fields(uniqueEmail('esc'), { name: '<script>alert(1)</script>', confirm: 'different passphrase here' }));
    const page = await r.res.text();
    expect(page).not.toContain('<script>alert(1)</script>');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});

describe('sign-up rate limit', () => {
  let limited: RunningApi;
  beforeAll(async () => {
    limited = await startTestApi({ ...testDatabase('invites_limit').env, SIGNIN_LIMIT_PER_IP: '3' });
    await setSiteSetting(limited.deps.store, 'registration', 'open');
  }, 120_000);
  afterAll(() => limited?.stop());

  it('answers 429 after SIGNIN_LIMIT_PER_IP attempts from one address in 15 minutes', async () => {
    await awayFromWindowEdge(SIGN_UP_WINDOW_MS, 20_000);
    const browser = new HttpUser(limited.url);
    const html = await (await browser.request('/signup')).text();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await browser.submit(html, '/signup', fields(uniqueEmail('limit'), { confirm: 'not the same' }));
      statuses.push(r.res.status);
      if (r.res.status === 429) expect(await r.res.text()).toContain('Too many sign-up attempts');
    }
    expect(statuses).toEqual([400, 400, 400, 429, 429]);
  });
});
