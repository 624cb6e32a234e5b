// The audit trail of sign-in, sessions and the user's own credentials, each
// event driven over HTTP through its real path (the sign-in form, the second
// factor, the account pages, RP-initiated logout, the admin API, the CLI):
// the record's event, outcome, actor, subject and data, the request it came
// from (address and the request id the response carried), and never a
// password, code, token or email in it. On a database of its own: the
// captcha is switched on for one case, and the limits are this file's.
import { generate } from 'otplib';
import type { Filter } from 'mongodb';
import { createInvite } from '../../../lib/admin/invite-changes.js';
import type { AuditEntry } from '../../../lib/model/audit-events.js';
import { createClient } from '../../../lib/store/clients.js';
import { setSiteSetting } from '../../../lib/store/settings.js';
import { findUserById, setUserFields } from '../../../lib/store/users.js';
import { totpSecret } from '../../../lib/verification/second-factor.js';
import { auditRecords, awaitAuditRecord } from '../../support/audit.js';
import { cliOn } from '../../support/cli.js';
import { testDatabase } from '../../support/database.js';
import { useTestApi } from '../../support/harness.js';
import { csrfOf, requestJson } from '../../support/http.js';
import { mintAccessToken } from '../../support/minted-token.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newUser, uniqueEmail } from '../../../tools/fixtures/users.js';
import { inOneWindow } from '../../support/clock.js';
import { SIGN_IN_WINDOW_MS } from '../../../api/sign-in-checks/sign-in-limits.js';
import { expectNoSecret } from '../../support/secrets.js';

const PASSWORD = 'audit sign-in password';
const NEW_PASSWORD = 'audit sign-in lantern orchard';
const WRONG = 'not the audit password';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const PER_ACCOUNT = 4;
const CAPTCHA_AFTER = 2;

const database = testDatabase('audit_sign_in');
const api = useTestApi({ ...database.env, SIGNIN_LIMIT_PER_ACCOUNT: String(PER_ACCOUNT), SIGNIN_CAPTCHA_AFTER: String(CAPTCHA_AFTER) });
const cli = cliOn(database.env);

/** Each test its own client address: the per-address limit and captcha threshold stay out of one another's way. */
let addressCount = 10;
const nextAddress = () => `198.51.100.${addressCount++}`;

/** A browser over HTTP from one address; every request also sends it as X-Forwarded-For (loopback is a trusted proxy). */
class Browser extends HttpUser {
  readonly address = nextAddress();
  override request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set('x-forwarded-for', this.address);
    return super.request(url, { ...init, headers });
  }
  /** POSTs a form with the CSRF token of `page` (fetched first). */
  async post(page: string, action: string, fields: Record<string, string>): Promise<Response> {
    const csrf = csrfOf(await (await this.request(page)).text());
    return this.request(action, {
      method: 'POST',
      body: new URLSearchParams({ csrf, ...fields }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  }
}

const browser = () => new Browser(api.url);

/** Signs in with a password at /login; the POST's response. */
const passwordSignIn = (b: Browser, email: string, password = PASSWORD) => b.post('/login', '/login', { email, password });

/**
 * The newest record matching `filter`, checked: the fields given, the data
 * keys exactly, the request (address and id) when `res` caused it, and none
 * of `secrets` anywhere in it.
 */
async function expectRecord(
  filter: Filter<AuditEntry>,
  expected: Partial<Pick<AuditEntry, 'outcome' | 'actor' | 'subject' | 'data'>>,
  { res, address, secrets = [] }: { res?: Response; address?: string; secrets?: string[] } = {},
): Promise<AuditEntry> {
  const record = await awaitAuditRecord(api.deps.store, res ? { ...filter, requestId: res.headers.get('x-request-id')! } : filter);
  expect(record).toMatchObject({ outcome: 'success', ...expected });
  if (expected.data) expect(Object.keys(record.data).sort()).toEqual(Object.keys(expected.data).sort());
  if (res) {
    expect(record.requestId).toBe(res.headers.get('x-request-id'));
    if (address) expect(record.ip).toBe(address);
    else expect(record.ip).toEqual(expect.any(String));
  }
  const text = JSON.stringify(record);
  for (const secret of secrets) expectNoSecret(text, secret);
  return record;
}

const userOf = (id: string) => ({ type: 'user', userId: id }) as const;

describe('login and login.failed', () => {
  it('records a password sign-in once, with its method, amr and acr, and no password or email', async () => {
    const { id, email } = await newUser(api.deps, { prefix: 'audit-login', password: PASSWORD });
    const b = browser();
    const res = await passwordSignIn(b, email);
    expect(res.headers.get('location')).toBe('/account');
    await expectRecord(
      { event: 'login', 'subject.userId': id },
      { actor: userOf(id), subject: { userId: id }, data: { method: 'password', amr: ['pwd'], acr: 'pwd' } },
      { res, address: b.address, secrets: [PASSWORD, email] },
    );
    expect(await auditRecords(api.deps.store, { event: 'login', 'subject.userId': id })).toHaveLength(1);
  });

  it('records unknown accounts and wrong passwords with the same opaque reference per email, never the email', async () => {
    const { id, email } = await newUser(api.deps, { prefix: 'audit-wrong', password: PASSWORD });
    const b = browser();
    const wrong = await passwordSignIn(b, email, WRONG);
    expect(wrong.status).toBe(401);
    const first = await expectRecord(
      { event: 'login.failed', 'subject.userId': id },
      {
        outcome: 'failure',
        actor: { type: 'anonymous' },
        subject: { userId: id },
        data: { method: 'password', reason: 'wrong_password', account: expect.any(String) },
      },
      { res: wrong, address: b.address, secrets: [WRONG, email, PASSWORD] },
    );
    // The same email is the same reference (a typo in the case too); another email another one.
    const again = await passwordSignIn(b, email.toUpperCase(), WRONG);
    const second = await expectRecord({ event: 'login.failed' }, { outcome: 'failure', subject: { userId: id } }, { res: again, address: b.address });
    expect(second.data.account).toBe(first.data.account);

    const nobody = uniqueEmail('audit-nobody');
    const unknown = await passwordSignIn(b, nobody, WRONG);
    expect(unknown.status).toBe(401);
    const record = await expectRecord(
      { event: 'login.failed' },
      { outcome: 'failure', actor: { type: 'anonymous' }, subject: {}, data: { method: 'password', reason: 'unknown_account', account: expect.any(String) } },
      { res: unknown, address: b.address, secrets: [WRONG, nobody] },
    );
    expect(record.data.account).not.toBe(first.data.account);
  });

  it('records a sign-in with an authenticator app (mfa), a wrong code, and a spent backup code with how many remain', async () => {
    const { id, email, backupCodes } = await newUser(api.deps, { prefix: 'audit-2fa', password: PASSWORD, totpSecret: TOTP_SECRET });
    const b = browser();
    expect((await passwordSignIn(b, email)).headers.get('location')).toBe('/login/second-factor');
    // A pending second factor is not a sign-in yet.
    expect(await auditRecords(api.deps.store, { event: 'login', 'subject.userId': id })).toHaveLength(0);
    const wrong = await b.post('/login/second-factor', '/login/second-factor', { code: '000000' });
    expect(wrong.status).toBe(401);
    await expectRecord(
      { event: 'login.failed', 'subject.userId': id },
      {
        outcome: 'failure',
        actor: { type: 'anonymous' },
        subject: { userId: id },
        data: { method: 'second_factor', reason: 'second_factor_failed', account: expect.any(String) },
      },
      { res: wrong, address: b.address, secrets: [email] },
    );
    const code = await generate({ secret: TOTP_SECRET });
    const right = await b.post('/login/second-factor', '/login/second-factor', { code });
    expect(right.headers.get('location')).toBe('/account');
    await expectRecord(
      { event: 'login', 'subject.userId': id },
      { actor: userOf(id), data: { method: 'password', amr: ['pwd', 'otp', 'mfa'], acr: 'mfa' } },
      { res: right, address: b.address, secrets: [code, email, PASSWORD] },
    );

    const other = browser();
    await passwordSignIn(other, email);
    const backup = await other.post('/login/second-factor', '/login/second-factor', { code: backupCodes[0]! });
    expect(backup.headers.get('location')).toBe('/account');
    await expectRecord(
      { event: 'backup_code.used', 'subject.userId': id },
      { actor: userOf(id), subject: { userId: id }, data: { remaining: backupCodes.length - 1 } },
      { res: backup, address: other.address, secrets: [backupCodes[0]!, email] },
    );
  });

  it('records the sign-in of a disabled account as disabled, after the right password', async () => {
    const { id, email } = await newUser(api.deps, { prefix: 'audit-disabled', password: PASSWORD });
    await setUserFields(api.deps.store, id, { disabled: true });
    const b = browser();
    const res = await passwordSignIn(b, email);
    expect(res.status).toBe(403);
    await expectRecord(
      { event: 'login.failed', 'subject.userId': id },
      {
        outcome: 'failure',
        actor: { type: 'anonymous' },
        subject: { userId: id },
        data: { method: 'password', reason: 'disabled', account: expect.any(String) },
      },
      { res, address: b.address, secrets: [PASSWORD, email] },
    );
  });

  it('records a sign-in refused by the per-account limit as limited', async () => {
    const { id, email } = await newUser(api.deps, { prefix: 'audit-limited', password: PASSWORD });
    inOneWindow(SIGN_IN_WINDOW_MS);
    const b = browser();
    for (let i = 0; i < PER_ACCOUNT; i++) expect((await passwordSignIn(b, email, WRONG)).status).toBe(401);
    const refused = await passwordSignIn(b, email);
    expect(refused.status).toBe(429);
    await expectRecord(
      { event: 'login.failed', 'subject.userId': id, 'data.reason': 'limited' },
      { outcome: 'failure', subject: { userId: id }, data: { method: 'password', reason: 'limited', account: expect.any(String) } },
      { res: refused, address: b.address, secrets: [PASSWORD, email] },
    );
  });

  it('records a failed captcha as captcha', async () => {
    const { id, email } = await newUser(api.deps, { prefix: 'audit-captcha', password: PASSWORD });
    await setSiteSetting(api.deps.store, 'captcha_provider', 'pow');
    await setSiteSetting(api.deps.store, 'pow_difficulty', 8);
    try {
      const b = browser();
      for (let i = 0; i < CAPTCHA_AFTER; i++) expect((await passwordSignIn(b, email, WRONG)).status).toBe(401);
      const challenge = ((await (await b.request('/login/captcha')).json()) as { pow_challenge: string }).pow_challenge;
      const res = await b.post('/login', '/login', { email, password: PASSWORD, pow_challenge: challenge, pow_nonce: 'x' });
      expect(res.status).toBe(400);
      await expectRecord(
        { event: 'login.failed', 'subject.userId': id, 'data.reason': 'captcha' },
        { outcome: 'failure', subject: { userId: id }, data: { method: 'password', reason: 'captcha', account: expect.any(String) } },
        { res, address: b.address, secrets: [PASSWORD, email] },
      );
    } finally {
      await setSiteSetting(api.deps.store, 'captcha_provider', 'none');
    }
  });
});

describe('reauth, logout and session.revoked', () => {
  it('records signing in again as the same user as reauth, not as another login', async () => {
    const { id, email } = await newUser(api.deps, { prefix: 'audit-reauth', password: PASSWORD });
    const b = browser();
    await passwordSignIn(b, email);
    const res = await b.post('/login?reauth=1&next=/account/security', '/login', { email, password: PASSWORD, next: '/account/security' });
    expect(res.headers.get('location')).toBe('/account/security');
    await expectRecord(
      { event: 'reauth', 'subject.userId': id },
      { actor: userOf(id), subject: { userId: id }, data: { method: 'password' } },
      { res, address: b.address, secrets: [PASSWORD, email] },
    );
    expect(await auditRecords(api.deps.store, { event: 'login', 'subject.userId': id })).toHaveLength(1);
  });

  it('records signing out from the account menu, and RP-initiated logout with the client', async () => {
    const { id, email } = await newUser(api.deps, { prefix: 'audit-logout', password: PASSWORD });
    const b = browser();
    await passwordSignIn(b, email);
    const res = await b.post('/account', '/logout', {});
    expect(res.status).toBe(200);
    await expectRecord({ event: 'logout', 'subject.userId': id }, { actor: userOf(id), subject: { userId: id }, data: {} }, { res, address: b.address });

    const { client } = await createClient(api.deps.store, {
      name: 'Audit logout RP',
      redirectUris: [{ type: 'equals', value: 'https://audit-rp.example/cb' }],
      allowedScopes: ['openid'],
      idTokenSignedResponseAlg: 'RS256',
    });
    await passwordSignIn(b, email);
    const rp = await b.post(`/api/oauth/end_session?client_id=${client._id}`, '/api/oauth/end_session', { client_id: client._id, confirm: 'yes' });
    expect(rp.status).toBe(200);
    await expectRecord(
      { event: 'logout', 'subject.userId': id, 'data.client_id': client._id },
      { actor: userOf(id), data: { client_id: client._id } },
      { res: rp, address: b.address },
    );
  });

  it('records sessions the user ends from the sessions page: one by its sid, the others everywhere with a count', async () => {
    const { id, email } = await newUser(api.deps, { prefix: 'audit-sessions', password: PASSWORD });
    const mine = browser();
    await passwordSignIn(mine, email);
    const mySid = (await api.deps.store.sessions.findOne({ userId: id }))!.sid;
    for (const b of [browser(), browser(), browser()]) await passwordSignIn(b, email);
    const otherSid = (await api.deps.store.sessions.find({ userId: id }).toArray()).find((s) => s.sid !== mySid)!.sid;

    const res = await mine.post('/account/sessions', `/account/sessions/${otherSid}/sign-out`, {});
    expect(res.status).toBe(200);
    await expectRecord(
      { event: 'session.revoked', 'subject.userId': id },
      { actor: userOf(id), subject: { userId: id }, data: { session_id: otherSid, by: 'user' } },
      { res, address: mine.address },
    );

    const everywhere = await mine.post('/account/sessions', '/account/sessions/sign-out-everywhere', {});
    expect(everywhere.status).toBe(200);
    await expectRecord(
      { event: 'session.revoked', 'subject.userId': id, 'data.count': { $exists: true } },
      { actor: userOf(id), data: { by: 'user', count: 2 } },
      { res: everywhere, address: mine.address },
    );
    // This browser signed itself out.
    await expectRecord({ event: 'logout', 'subject.userId': id }, { actor: userOf(id) }, { res: everywhere, address: mine.address });
  });

  it('records a password change, the refused current password, and the other sessions it ends', async () => {
    const { id, email } = await newUser(api.deps, { prefix: 'audit-password', password: PASSWORD });
    const [b, other] = [browser(), browser()];
    await passwordSignIn(b, email);
    await passwordSignIn(other, email);

    const wrong = await b.post('/account/password', '/account/password', { current: WRONG, password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    expect(wrong.status).toBe(401);
    await expectRecord(
      { event: 'login.failed', 'subject.userId': id },
      { outcome: 'failure', actor: userOf(id), subject: { userId: id }, data: { method: 'password', reason: 'wrong_password', account: expect.any(String) } },
      { res: wrong, address: b.address, secrets: [WRONG, NEW_PASSWORD, email] },
    );

    const res = await b.post('/account/password', '/account/password', { current: PASSWORD, password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    expect(res.status).toBe(200);
    const secrets = [PASSWORD, NEW_PASSWORD, email];
    await expectRecord(
      { event: 'password.changed', 'subject.userId': id },
      { actor: userOf(id), subject: { userId: id }, data: { first: false } },
      { res, address: b.address, secrets },
    );
    await expectRecord(
      { event: 'session.revoked', 'subject.userId': id },
      { actor: userOf(id), subject: { userId: id }, data: { by: 'account_change', count: 1 } },
      { res, address: b.address, secrets },
    );
  });

  it('records the sessions an administrator ends by disabling an account (admin API), with the administrator', async () => {
    const admin = await newUser(api.deps, { prefix: 'audit-admin', password: PASSWORD, admin: true });
    const token = await mintAccessToken(api, admin.id, ['admin:users:write']);
    const { id, email } = await newUser(api.deps, { prefix: 'audit-cut-off', password: PASSWORD });
    for (const b of [browser(), browser()]) await passwordSignIn(b, email);
    const res = await requestJson(`${api.url}/api/oauth/me/admin/users/${id}`, 'PATCH', { token, body: { disabled: true } });
    expect(res.status).toBe(200);
    const record = await expectRecord(
      { event: 'session.revoked', 'subject.userId': id },
      { actor: expect.objectContaining(userOf(admin.id)), subject: { userId: id }, data: { by: 'account_change', count: 2 } },
      { secrets: [token, email] },
    );
    expect(record.requestId).toEqual(expect.any(String));
  });

  it('records a session found signed in to an account disabled behind its back (straight in MongoDB) as ended by the system', async () => {
    const { id, email } = await newUser(api.deps, { prefix: 'audit-late-disable', password: PASSWORD });
    const b = browser();
    await passwordSignIn(b, email);
    const sid = (await api.deps.store.sessions.findOne({ userId: id }))!.sid;
    await setUserFields(api.deps.store, id, { disabled: true });
    const res = await b.request('/account');
    expect([res.status, res.headers.get('location')]).toEqual([303, '/login']);
    await expectRecord(
      { event: 'session.revoked', 'subject.userId': id },
      { actor: { type: 'system' }, subject: { userId: id }, data: { session_id: sid, by: 'account_change' } },
      { res, address: b.address },
    );
  });

  it('records the sessions the operator CLI ends by disabling an account, with the operator', async () => {
    const { id, email } = await newUser(api.deps, { prefix: 'audit-cli-cut-off', password: PASSWORD });
    await passwordSignIn(browser(), email);
    await cli.ok('users', 'disable', id);
    await expectRecord(
      { event: 'session.revoked', 'subject.userId': id },
      { actor: { type: 'operator' }, subject: { userId: id }, data: { by: 'account_change', count: 1 } },
      { secrets: [email] },
    );
  });
});

describe('user.created (self-service)', () => {
  it('records a sign-up and an invitation sign-up, each with how it came', async () => {
    await setSiteSetting(api.deps.store, 'registration', 'open');
    try {
      const email = uniqueEmail('audit-signup');
      const b = browser();
      const res = await b.post('/signup', '/signup', { email, name: 'Audit Signup', username: '', password: NEW_PASSWORD, confirm: NEW_PASSWORD });
      expect(res.status).toBe(303);
      const record = await expectRecord(
        { event: 'user.created', 'data.via': 'signup' },
        { data: { admin: false, via: 'signup' } },
        { res, address: b.address, secrets: [NEW_PASSWORD, email] },
      );
      expect(record.actor).toEqual(userOf(record.subject.userId!));
      expect(await findUserById(api.deps.store, record.subject.userId!)).toMatchObject({ email });

      const { link } = await createInvite({ ...api.deps, issuer: api.issuer }, {}, { type: 'operator' });
      const invite = new URL(link).searchParams.get('invite')!;
      const invited = uniqueEmail('audit-invited');
      const c = browser();
      const viaInvite = await c.post(`/signup?invite=${invite}`, '/signup', {
        invite,
        email: invited,
        name: 'Audit Invited',
        username: '',
        password: NEW_PASSWORD,
        confirm: NEW_PASSWORD,
      });
      expect(viaInvite.status).toBe(303);
      await expectRecord(
        { event: 'user.created', 'data.via': 'invite' },
        { data: { admin: false, via: 'invite' } },
        { res: viaInvite, address: c.address, secrets: [NEW_PASSWORD, invited, invite] },
      );
    } finally {
      await setSiteSetting(api.deps.store, 'registration', 'invite');
    }
  });
});

describe('second factors and personal access tokens', () => {
  it('records enrolling an authenticator app (with its first backup codes), new backup codes, and removing the app', async () => {
    const { id, email } = await newUser(api.deps, { prefix: 'audit-totp', password: PASSWORD });
    const b = browser();
    await passwordSignIn(b, email);
    expect((await b.post('/account/security', '/account/security/totp/setup', {})).status).toBe(303);
    const user = (await findUserById(api.deps.store, id))!;
    const secret = totpSecret(api.deps.kek, user, user.totpPending!.secret);
    const code = await generate({ secret });
    const res = await b.post('/account/security', '/account/security/totp/confirm', { code });
    expect(res.status).toBe(200);
    const page = await res.text();
    const shown = [...page.matchAll(/<code>([^<]+)<\/code>/g)].map((m) => m[1]!);
    expect(shown.length).toBeGreaterThan(0);
    const secrets = [secret, code, email, ...shown];
    await expectRecord(
      { event: 'totp.enabled', 'subject.userId': id },
      { actor: userOf(id), subject: { userId: id }, data: {} },
      { res, address: b.address, secrets },
    );
    await expectRecord(
      { event: 'backup_codes.generated', 'subject.userId': id },
      { actor: userOf(id), data: { count: 10 } },
      { res, address: b.address, secrets },
    );

    const again = await b.post('/account/security', '/account/security/backup-codes', {});
    expect(again.status).toBe(200);
    await expectRecord({ event: 'backup_codes.generated', 'subject.userId': id }, { data: { count: 10 } }, { res: again, address: b.address });

    const removed = await b.post('/account/security', '/account/security/totp/remove', {});
    expect(removed.status).toBe(303);
    await expectRecord(
      { event: 'totp.disabled', 'subject.userId': id },
      { actor: userOf(id), subject: { userId: id }, data: {} },
      { res: removed, address: b.address },
    );
  });

  it('records making and revoking a personal access token by its public id, never the token', async () => {
    const { id, email } = await newUser(api.deps, { prefix: 'audit-pat', password: PASSWORD });
    const b = browser();
    await passwordSignIn(b, email);
    const res = await b.post('/account/tokens', '/account/tokens', { name: 'audit token', scope: 'profile:write', expires_in_days: '7' });
    expect(res.status).toBe(200);
    const token = /<code class="secret" data-token>([^<]+)<\/code>/.exec(await res.text())?.[1];
    expect(token).toEqual(expect.any(String));
    const doc = (await api.deps.store.personalAccessTokens.findOne({ userId: id }))!;
    await expectRecord(
      { event: 'pat.created', 'subject.userId': id },
      { actor: userOf(id), subject: { userId: id }, data: { token_id: doc.id, scopes: ['profile:write'], expires_at: doc.expiresAt!.toISOString() } },
      { res, address: b.address, secrets: [token!, doc._id, email] },
    );

    const revoked = await b.post('/account/tokens', `/account/tokens/${doc.id}/revoke`, {});
    expect(revoked.status).toBe(303);
    await expectRecord(
      { event: 'pat.revoked', 'subject.userId': id },
      { actor: userOf(id), subject: { userId: id }, data: { token_id: doc.id } },
      { res: revoked, address: b.address, secrets: [token!, doc._id] },
    );
  });

  it('records a personal access token the operator CLI makes, with the operator', async () => {
    const { id, email } = await newUser(api.deps, { prefix: 'audit-cli-pat', password: PASSWORD });
    const made = await cli.ok('tokens', 'create', '--user', id, '--name', 'cli token', '--scope', 'profile:write', '--expires-in-days', '3');
    await expectRecord(
      { event: 'pat.created', 'subject.userId': id },
      { actor: { type: 'operator' }, subject: { userId: id }, data: { token_id: made.id, scopes: ['profile:write'], expires_at: made.expires_at } },
      { secrets: [made.token, email] },
    );
  });
});
