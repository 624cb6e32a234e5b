// Pages shown to a browser without a session write nothing: their forms carry
// a stateless double-submit CSRF token (the kf_csrf cookie). A session document
// appears only when a form needs server state (sign-in, a pending second
// factor, a WebAuthn ceremony), and anonymous ones are limited per address.
import { randomUUID } from 'node:crypto';
import { createUser } from '../../../lib/store/users.js';
import { useTestApi } from '../../support/harness.js';
import { csrfOf } from '../../support/http.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { testDatabase } from '../../support/database.js';

const PASSWORD = 'anonymous sessions password';
const PER_IP = 3;

const api = useTestApi({ ...testDatabase('anon_sessions').env, REQUEST_LIMIT_PER_IP: String(PER_IP) });

const sessionCount = () => api.deps.store.sessions.countDocuments({});
const form = (fields: Record<string, string>, headers: Record<string, string> = {}) => ({
  method: 'POST',
  body: new URLSearchParams(fields),
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
});

describe('anonymous pages', () => {
  it('create no session document on cookie-less GETs', async () => {
    const before = await sessionCount();
    const paths = [
      '/login',
      '/login?next=%2Fdevice',
      '/login/second-factor',
      '/device',
      '/device?user_code=BCDF-GHJK',
      '/device/consent?user_code=BCDF-GHJK',
      `/oauth/2fa?challenge_id=${randomUUID()}`,
      '/api/oauth/end_session',
    ];
    for (const path of paths) {
      const res = await fetch(`${api.issuer}${path}`, { redirect: 'manual' });
      expect({ path, status: res.status < 500 }).toEqual({ path, status: true });
      expect(res.headers.getSetCookie().some((c) => c.startsWith('kf_session='))).toBe(false);
    }
    expect(await sessionCount()).toBe(before);
  });

  it('keep their forms working with the anonymous CSRF token, and refuse a missing cookie or a wrong token', async () => {
    const email = uniqueEmail('anon');
    await createUser(api.deps.store, { email, password: PASSWORD });
    const agent = new HttpUser(api.issuer);
    const page = await (await agent.get('/login')).res.text();
    const csrf = csrfOf(page);

    // The token without its cookie (another browser), and the cookie with a wrong token: refused, nothing signed in.
    const stranger = new HttpUser(api.issuer);
    expect((await stranger.request('/login', form({ email, password: PASSWORD, csrf }))).status).toBe(400);
    expect((await agent.request('/login', form({ email, password: PASSWORD, csrf: csrf.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) }))).status).toBe(400);
    expect((await agent.request('/device', form({ user_code: 'BCDF-GHJK', csrf: 'forged' }))).status).toBe(400);
    expect(await (await stranger.request('/device', form({ user_code: 'BCDF-GHJK', csrf }))).text()).toContain('Your session expired');

    // With both: the device form checks the code (not the CSRF token) ...
    const device = await agent.request('/device', form({ user_code: 'BCDF-GHJK', csrf }));
    expect(device.status).toBe(400);
    expect(await device.text()).toContain('That code is not valid');
    // ... and the sign-in form signs in: the first session document of this browser.
    const before = await sessionCount();
    const signedIn = await agent.submit(page, '/login', { email, password: PASSWORD });
    expect(signedIn.url).toBe(`${api.issuer}/account`);
    expect(signedIn.res.status).toBe(200);
    expect(await sessionCount()).toBe(before + 1);
  });

  it('limit the anonymous sessions a WebAuthn ceremony starts, per client address', async () => {
    const options = async (address: string) => {
      const agent = new HttpUser(api.issuer);
      const csrf = csrfOf(await (await agent.get('/login')).res.text());
      return agent.request('/login/passkey/options', {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf, 'x-forwarded-for': address },
      });
    };
    for (let i = 0; i < PER_IP; i++) {
      const res = await options('198.51.100.7');
      expect(res.status).toBe(200);
      expect(res.headers.getSetCookie().some((c) => c.startsWith('kf_session='))).toBe(true);
    }
    const refused = await options('198.51.100.7');
    expect(refused.status).toBe(429);
    expect(refused.headers.getSetCookie().some((c) => c.startsWith('kf_session='))).toBe(false);
    expect((await options('198.51.100.8')).status).toBe(200);
  });
});
