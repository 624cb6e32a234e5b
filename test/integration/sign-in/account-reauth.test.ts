// Sensitive account changes (second factors, personal access tokens) need a
// recent sign-in: after REAUTH_MAX_AGE_SECONDS the page sends the user to
// /login?reauth=1&next=<page>, a normal sign-in (password, second factor)
// follows and `next` brings them back. `next` accepts only paths of this site.
// Personal access tokens always expire, at most PAT_MAX_LIFETIME_DAYS after
// creation; stored tokens older than that stop working.
import { generate } from 'otplib';
import type { RunningApi } from '../../../api/server.js';
import { hashSecret, newSecret } from '../../../lib/security/secrets.js';
import { PAT_COLLECTION } from '../../../lib/store/personal-access-tokens.js';
import { PAT_PREFIX } from '../../../lib/model/personal-access-tokens.js';
import { createUser } from '../../../lib/store/users.js';
import { enrollFactors } from '../../../tools/fixtures/factors.js';
import { eventually, startTestApi, type Json } from '../../support/harness.js';
import { csrfOf } from '../../support/http.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { testDatabase } from '../../support/database.js';

const PASSWORD = 'account re-auth password';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const PAT_DAYS = 30;
const DAY_MS = 86_400_000;

let api: RunningApi;
let issuer: string;
/** A token stored before the cap: no expiry, created 40 days ago (older than the cap), and one created 10 days ago. */
const legacy = { old: `${PAT_PREFIX}${newSecret()}`, young: `${PAT_PREFIX}${newSecret()}` };

beforeAll(async () => {
  const database = testDatabase('account_reauth');
  // The legacy tokens are in the database before the api starts, as after an upgrade.
  const first = await startTestApi(database.env);
  const owner = await createUser(first.deps.store, { email: uniqueEmail('legacy'), password: PASSWORD });
  const pats = first.deps.store.db.collection(PAT_COLLECTION);
  for (const [token, ageDays] of [
    [legacy.old, 40],
    [legacy.young, 10],
  ] as const) {
    const createdAt = new Date(Date.now() - ageDays * DAY_MS);
    await pats.insertOne({
      _id: hashSecret(token) as never,
      id: `legacy-${ageDays}`,
      userId: owner._id,
      name: 'legacy',
      scope: ['profile:write'],
      createdAt,
      expiresAt: null,
    });
  }
  await first.stop();
  api = await startTestApi({ ...database.env, PAT_MAX_LIFETIME_DAYS: String(PAT_DAYS), REAUTH_MAX_AGE_SECONDS: '900' });
  issuer = api.deps.config.issuer;
});
afterAll(() => api.stop());

const post = (agent: HttpUser, path: string, fields: Record<string, string | string[]>) => {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const x of ([] as string[]).concat(v)) body.append(k, x);
  return agent.request(path, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
};

async function signedIn(opts: { factors?: boolean } = {}) {
  const email = uniqueEmail('reauth');
  const user = await createUser(api.deps.store, { email, password: PASSWORD });
  if (opts.factors) await enrollFactors(api.deps.store, api.deps.kek, user._id, TOTP_SECRET);
  const agent = new HttpUser(issuer);
  let step = await agent.signIn(await agent.get('/login'), email, PASSWORD);
  if (opts.factors) step = await agent.submit(await step.res.text(), '/login/second-factor', { code: await generate({ secret: TOTP_SECRET }) });
  expect(step.url).toBe(`${issuer}/account`);
  return { agent, user, email };
}

/** Makes the agent's sign-in `minutes` old (its session's auth_time). */
async function age(userId: string, minutes: number) {
  await api.deps.store.sessions.updateMany({ userId }, { $set: { authTime: new Date(Date.now() - minutes * 60_000) } });
}

const reauth = (next: string) => `/login?reauth=1&next=${encodeURIComponent(next)}`;

describe('re-authentication for sensitive account changes', () => {
  it('sends an old sign-in to sign in again for second-factor changes and tokens, changing nothing', async () => {
    const { agent, user } = await signedIn({ factors: true });
    const security = await (await agent.get('/account/security')).res.text();
    const tokens = await (await agent.get('/account/tokens')).res.text();
    await age(user._id, 16);
    const before = await api.deps.store.users.findOne({ _id: user._id });

    for (const path of ['/account/security/backup-codes', '/account/security/totp/remove', '/account/security/totp/setup']) {
      const res = await post(agent, path, { csrf: csrfOf(security) });
      expect({ path, status: res.status, location: res.headers.get('location') }).toEqual({ path, status: 303, location: reauth('/account/security') });
    }
    const passkey = await agent.request('/account/security/passkeys/options', {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrfOf(security) },
    });
    expect(passkey.status).toBe(401);
    expect((await passkey.json()) as Json).toMatchObject({ error: 'login_required', redirect: reauth('/account/security') });
    const pat = await post(agent, '/account/tokens', { csrf: csrfOf(tokens), name: 'late', scope: 'apps:read', expires_in_days: '5' });
    expect(pat.status).toBe(303);
    expect(pat.headers.get('location')).toBe(reauth('/account/tokens'));

    const after = await api.deps.store.users.findOne({ _id: user._id });
    expect(after!.backupCodes).toEqual(before!.backupCodes);
    expect(after!.totp).not.toBeNull();
    expect(await api.deps.store.db.collection(PAT_COLLECTION).countDocuments({ userId: user._id })).toBe(0);
    // A still-recent sign-in is enough: no detour.
    await age(user._id, 5);
    const codes = await post(agent, '/account/security/backup-codes', { csrf: csrfOf(security) });
    expect(codes.status).toBe(200);
    expect(await codes.text()).toContain('Your backup codes');
  });

  it('shows the sign-in form to the signed-in user with the email fixed, and returns to the page after password and second factor', async () => {
    const { agent, user, email } = await signedIn({ factors: true });
    await age(user._id, 30);
    const form = await agent.get(reauth('/account/security'));
    const page = await form.res.text();
    expect(form.res.status).toBe(200);
    expect(page).toContain('Sign in again to continue');
    expect(page).toMatch(new RegExp(`id="email"[^>]*value="${email.replace(/[.+]/g, '\\$&')}" readonly`));
    const afterPassword = await agent.submit(page, '/login', { email, password: PASSWORD });
    expect(afterPassword.url).toContain('/login/second-factor');
    const back = await agent.submit(await afterPassword.res.text(), '/login/second-factor', {
      code: await generate({ secret: TOTP_SECRET, epoch: Math.floor(Date.now() / 1000) + 30 }),
    });
    expect(back.url).toBe(`${issuer}/account/security`);
    // Signed in just now: the change goes through.
    const codes = await post(agent, '/account/security/backup-codes', { csrf: csrfOf(await back.res.text()) });
    expect(codes.status).toBe(200);
  });

  it('offers backup codes only with a second factor, and refuses to make them without one', async () => {
    const { agent, user } = await signedIn();
    const security = await (await agent.get('/account/security')).res.text();
    expect(security).not.toContain('Generate new backup codes');
    expect(security).toContain('Set up one of them first');
    const refused = await post(agent, '/account/security/backup-codes', { csrf: csrfOf(security) });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('Set up an authenticator app or a passkey first');
    expect((await api.deps.store.users.findOne({ _id: user._id }))!.backupCodes).toEqual([]);
  });

  it('accepts as next only paths of this site', async () => {
    const { agent, email } = await signedIn();
    const signInWith = async (next: string) => {
      const page = await (await agent.get(reauth(next))).res.text();
      const res = await agent.request('/login', {
        method: 'POST',
        body: new URLSearchParams({ email, password: PASSWORD, csrf: csrfOf(page), next }),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(res.status).toBe(303);
      return res.headers.get('location')!;
    };
    for (const next of ['/account/tokens', '/account/apps/3f2a-b', '/device?user_code=ABCD', '/oauth/2fa?challenge_id=x']) {
      expect(await signInWith(next)).toBe(next);
    }
    // Anything else is taken for an authorization request id (which then shows an error page), never followed.
    for (const next of [
      '//evil.example/account',
      'https://evil.example/account',
      '/account/../../evil',
      '/account\\evil',
      '/accountant',
      `/account/${'a'.repeat(65)}`,
    ]) {
      const location = await signInWith(next);
      expect({ next, resume: location.startsWith('/api/oauth/authorize/resume?') }).toEqual({ next, resume: true });
    }
  });
});

describe('personal access token lifetime', () => {
  it('is required and capped: no "no expiry", nothing beyond PAT_MAX_LIFETIME_DAYS', async () => {
    const { agent } = await signedIn();
    const page = await (await agent.get('/account/tokens')).res.text();
    expect(page).not.toContain('never');
    expect(page).toContain(`max="${PAT_DAYS}"`);
    for (const days of ['', String(PAT_DAYS + 1), '0', 'soon']) {
      const res = await post(agent, '/account/tokens', { csrf: csrfOf(page), name: 'x', scope: 'apps:read', expires_in_days: days });
      expect({ days, status: res.status }).toEqual({ days, status: 400 });
      expect(await res.text()).not.toContain(PAT_PREFIX);
    }
    const ok = await post(agent, '/account/tokens', { csrf: csrfOf(page), name: 'longest', scope: 'apps:read', expires_in_days: String(PAT_DAYS) });
    const token = /kfpat_[A-Za-z0-9_-]{43}/.exec(await ok.text())![0];
    const doc = await api.deps.store.db.collection(PAT_COLLECTION).findOne({ _id: hashSecret(token) as never });
    expect(Math.round((doc!.expiresAt.getTime() - doc!.createdAt.getTime()) / DAY_MS)).toBe(PAT_DAYS);
  });

  it('ends stored tokens older than the cap, and caps younger ones without an expiry', async () => {
    const patch = (token: string) =>
      fetch(`${issuer}/api/oauth/me/profile`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Legacy' }),
      });
    await eventually(async () => expect((await patch(legacy.old)).status).toBe(401));
    expect((await patch(legacy.young)).status).toBe(200);
    const young = await api.deps.store.db.collection(PAT_COLLECTION).findOne({ _id: hashSecret(legacy.young) as never });
    expect(young!.expiresAt.getTime() - young!.createdAt.getTime()).toBe(PAT_DAYS * DAY_MS);
  });
});
