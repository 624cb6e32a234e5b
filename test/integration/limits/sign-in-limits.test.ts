// Sign-in limits under parallel requests: per account, per user for second
// factors, per client address (X-Forwarded-For from loopback plays several
// addresses), site-wide; the captcha the form asks for after repeated failures
// (self-hosted proof of work); and what the log says about failures. Each api
// here runs on a database of its own with the limits it tests.
import { generate } from 'otplib';
import type { RunningApi } from '../../../api/server.js';
import { startApi } from '../../../api/server.js';
import { solvePow } from '../../../lib/model/captcha.js';
import { freePort } from '../../../tools/embedded/ports.js';
import { createLogger } from '../../../lib/runtime/log.js';
import { setSiteSetting } from '../../../lib/store/settings.js';
import { createUser } from '../../../lib/store/users.js';
import { enrollFactors } from '../../../tools/fixtures/factors.js';
import { testConfig, type Json } from '../../support/harness.js';
import { csrfOf } from '../../support/http.js';
import { testDatabase } from '../../support/database.js';
import { awayFromWindowEdge } from '../../support/limits.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';

const PASSWORD = 'sign-in limits password';
const WRONG = 'not the right password';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const PER_ACCOUNT = 7;
/** Limits count in 15-minute windows: a burst that straddles two would get two windows' worth. */
const WINDOW_MS = 15 * 60_000;
/** 50 parallel requests on a shared, loaded machine. */
const BURST_TIMEOUT = 180_000;

const apis: RunningApi[] = [];
afterAll(() => Promise.all(apis.map((a) => a.stop())));

async function ownApi(env: Record<string, string>, log = createLogger('error')): Promise<RunningApi> {
  const port = await freePort();
  const config = testConfig({ PORT: String(port), ISSUER: `http://127.0.0.1:${port}`, ...testDatabase(`sign_in_limits_${apis.length}`).env, ...env });
  const api = await startApi(config, log);
  apis.push(api);
  return api;
}

const form = (fields: Record<string, string>, address?: string): RequestInit => ({
  method: 'POST',
  body: new URLSearchParams(fields),
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...(address ? { 'x-forwarded-for': address } : {}) },
});

/** A browser on the sign-in page: its CSRF token. */
async function atLogin(api: RunningApi, address?: string) {
  const agent = new HttpUser(api.deps.config.issuer);
  const res = await agent.request('/login', address ? { headers: { 'x-forwarded-for': address } } : {});
  const page = await res.text();
  return { agent, page, csrf: csrfOf(page) };
}

async function tally(responses: Response[]): Promise<{ statuses: Record<number, number>; texts: string[] }> {
  const statuses: Record<number, number> = {};
  const texts: string[] = [];
  for (const r of responses) {
    statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    texts.push(await r.text());
  }
  return { statuses, texts };
}

describe('sign-in limits', () => {
  let api: RunningApi;
  beforeAll(async () => {
    api = await ownApi({ SIGNIN_LIMIT_PER_ACCOUNT: String(PER_ACCOUNT) });
  });

  it(
    `check at most ${PER_ACCOUNT} of 50 parallel wrong passwords for one email, then refuse even the right one`,
    async () => {
      const email = uniqueEmail('burst');
      await createUser(api.deps.store, { email, password: PASSWORD });
      await awayFromWindowEdge(WINDOW_MS, 60_000);
      const { agent, csrf } = await atLogin(api);
      const burst = await Promise.all(Array.from({ length: 50 }, () => agent.request('/login', form({ email, password: WRONG, csrf }))));
      const { statuses, texts } = await tally(burst);
      expect(Object.keys(statuses).sort()).toEqual(['401', '429']);
      expect(statuses[401]).toBeLessThanOrEqual(PER_ACCOUNT);
      expect(statuses[401]! + statuses[429]!).toBe(50);
      expect(texts.filter((t) => t.includes('Incorrect email or password.')).length).toBe(statuses[401]);

      const right = await agent.request('/login', form({ email, password: PASSWORD, csrf }));
      expect(right.status).toBe(429);
      expect(await right.text()).toContain('Too many failed attempts');
      expect((await agent.request('/account')).headers.get('location')).toBe('/login');
    },
    BURST_TIMEOUT,
  );

  it(
    `check at most ${PER_ACCOUNT} of 50 parallel wrong second-factor codes, then refuse even the right one`,
    async () => {
      const email = uniqueEmail('burst2fa');
      const user = await createUser(api.deps.store, { email, password: PASSWORD });
      await enrollFactors(api.deps.store, api.deps.kek, user._id, TOTP_SECRET);
      await awayFromWindowEdge(WINDOW_MS, 60_000);
      const { agent, csrf } = await atLogin(api);
      const afterPassword = await agent.request('/login', form({ email, password: PASSWORD, csrf }));
      expect(afterPassword.headers.get('location')).toBe('/login/second-factor');
      const burst = await Promise.all(Array.from({ length: 50 }, () => agent.request('/login/second-factor', form({ code: 'AAAAA-AAAAA', csrf }))));
      const { statuses } = await tally(burst);
      expect(Object.keys(statuses).sort()).toEqual(['401', '429']);
      expect(statuses[401]).toBeLessThanOrEqual(PER_ACCOUNT);
      expect(statuses[401]! + statuses[429]!).toBe(50);

      const right = await agent.request('/login/second-factor', form({ code: await generate({ secret: TOTP_SECRET }), csrf }));
      expect(right.status).toBe(429);
      expect((await agent.request('/account')).headers.get('location')).toBe('/login');
    },
    BURST_TIMEOUT,
  );
});

describe('the per-address limit', () => {
  it('stops failures from one address across many emails while another address still signs in', async () => {
    const api = await ownApi({ SIGNIN_LIMIT_PER_IP: '5' });
    const email = uniqueEmail('victim');
    await createUser(api.deps.store, { email, password: PASSWORD });
    await awayFromWindowEdge(WINDOW_MS, 60_000);
    const attacker = '203.0.113.10';
    const { agent, csrf } = await atLogin(api, attacker);
    for (let i = 0; i < 5; i++) {
      const res = await agent.request('/login', form({ email: uniqueEmail(`spray${i}`), password: WRONG, csrf }, attacker));
      expect(res.status).toBe(401);
    }
    // The address is spent: another email, even with its right password, is not checked.
    expect((await agent.request('/login', form({ email: uniqueEmail('spray-more'), password: WRONG, csrf }, attacker))).status).toBe(429);
    expect((await agent.request('/login', form({ email, password: PASSWORD, csrf }, attacker))).status).toBe(429);

    const other = await atLogin(api, '203.0.113.11');
    const signedIn = await other.agent.request('/login', form({ email, password: PASSWORD, csrf: other.csrf }, '203.0.113.11'));
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/account');
  });
});

describe('the captcha after repeated failures', () => {
  let api: RunningApi;
  beforeAll(async () => {
    api = await ownApi({ SIGNIN_CAPTCHA_AFTER: '2' });
    await setSiteSetting(api.deps.store, 'captcha_provider', 'pow');
    await setSiteSetting(api.deps.store, 'pow_difficulty', 8);
  });

  const solved = async (agent: HttpUser, address: string) => {
    const info = (await (await agent.request('/login/captcha', { headers: { 'x-forwarded-for': address } })).json()) as Json;
    expect(info).toEqual({ pow_challenge: expect.any(String), pow_difficulty: 8 });
    return { pow_challenge: info.pow_challenge as string, pow_nonce: solvePow(info.pow_challenge, 8) };
  };

  it('is asked for an account after its failures, and a solved proof of work lets the right password in', async () => {
    const email = uniqueEmail('captcha');
    await createUser(api.deps.store, { email, password: PASSWORD });
    await awayFromWindowEdge(WINDOW_MS, 60_000);
    const address = '198.51.100.20';
    const { agent, page, csrf } = await atLogin(api, address);
    expect(page).not.toContain('data-pow');
    expect(await (await agent.request('/login', form({ email, password: WRONG, csrf }, address))).text()).not.toContain('data-pow');
    const second = await (await agent.request('/login', form({ email, password: WRONG, csrf }, address))).text();
    expect(second).toContain('data-pow');
    expect(second).toContain('src="/assets/captcha.js"');

    // Without an answer the password is not checked; a wrong answer is refused (and counts); a used one too.
    const unanswered = await agent.request('/login', form({ email, password: PASSWORD, csrf }, address));
    expect(unanswered.status).toBe(400);
    expect(await unanswered.text()).toContain('Complete the check below');
    const good = await solved(agent, address);
    const wrongNonce = await agent.request('/login', form({ email, password: PASSWORD, csrf, pow_challenge: good.pow_challenge, pow_nonce: 'x' }, address));
    expect(wrongNonce.status).toBe(400);
    const reused = await agent.request('/login', form({ email, password: PASSWORD, csrf, ...good }, address));
    expect(reused.status).toBe(400);
    expect(await reused.text()).toContain('already used');

    const ok = await agent.request('/login', form({ email, password: PASSWORD, csrf, ...(await solved(agent, address)) }, address));
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/account');
  });

  it('is asked for an address after its failures across emails, not for other addresses', async () => {
    await awayFromWindowEdge(WINDOW_MS, 60_000);
    const address = '198.51.100.30';
    const { agent, csrf } = await atLogin(api, address);
    for (const i of [1, 2]) await agent.request('/login', form({ email: uniqueEmail(`ip${i}`), password: WRONG, csrf }, address));
    expect((await atLogin(api, address)).page).toContain('data-pow');
    expect((await atLogin(api, '198.51.100.31')).page).not.toContain('data-pow');
  });
});

describe('the site-wide limit and the log', () => {
  it('refuses password sign-ins beyond it without a captcha provider (one warning per window), asks the captcha with one, and logs failures without the email', async () => {
    const lines: string[] = [];
    const api = await ownApi(
      { SIGNIN_LIMIT_GLOBAL: '3', SIGNIN_CAPTCHA_AFTER: '100' },
      createLogger('info', (l) => lines.push(l)),
    );
    const email = uniqueEmail('global');
    await createUser(api.deps.store, { email, password: PASSWORD });
    await awayFromWindowEdge(WINDOW_MS, 60_000);
    for (let i = 0; i < 3; i++) {
      const address = `192.0.2.${i + 1}`;
      const { agent, csrf } = await atLogin(api, address);
      expect((await agent.request('/login', form({ email: uniqueEmail(`g${i}`), password: WRONG, csrf }, address))).status).toBe(401);
    }
    for (const address of ['192.0.2.50', '192.0.2.51']) {
      const { agent, csrf } = await atLogin(api, address);
      const refused = await agent.request('/login', form({ email, password: PASSWORD, csrf }, address));
      expect(refused.status).toBe(429);
      expect(await refused.text()).toContain('Too many failed sign-ins on this site');
    }
    expect(lines.filter((l) => / warn {2}site-wide sign-in limit reached/.test(l))).toHaveLength(1);

    const failures = lines.filter((l) => l.includes('sign-in failed'));
    expect(failures.length).toBeGreaterThanOrEqual(3);
    expect(failures[0]).toMatch(
      /^\d{4}-\d\d-\d\dT[\d:.]+Z info +sign-in failed method=password account=[0-9a-f]{16} ip=(::ffff:)?192\.0\.2\.1 reason="bad credentials" requestId=[\w.-]+$/,
    );
    expect(lines.join('\n')).not.toContain('@example.com');

    // With a captcha provider the site-wide limit asks for the captcha instead.
    await setSiteSetting(api.deps.store, 'captcha_provider', 'pow');
    await setSiteSetting(api.deps.store, 'pow_difficulty', 8);
    const { agent, page, csrf } = await atLogin(api, '192.0.2.60');
    expect(page).toContain('data-pow');
    const info = (await (await agent.request('/login/captcha', { headers: { 'x-forwarded-for': '192.0.2.60' } })).json()) as Json;
    const ok = await agent.request(
      '/login',
      form({ email, password: PASSWORD, csrf, pow_challenge: info.pow_challenge, pow_nonce: solvePow(info.pow_challenge, 8) }, '192.0.2.60'),
    );
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/account');
  });
});
