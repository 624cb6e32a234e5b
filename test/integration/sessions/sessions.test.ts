// Sessions: the idle timeout beside the absolute lifetime (lastSeenAt written
// at most once a minute), the /account/sessions page (sign out one session or
// everywhere, each with back-channel logout), and with an https issuer HSTS on
// every response and `__Host-` cookies.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '../../../lib/store/clients.js';
import { addSessionClient } from '../../../lib/store/sessions.js';
import { createUser } from '../../../lib/store/users.js';
import { commandFilters } from '../../support/command-filters.js';
import { useTestApi, eventually, startTestApi } from '../../support/harness.js';
import { csrfOf, jwtClaims } from '../../support/http.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { testDatabase } from '../../support/database.js';

const PASSWORD = 'sessions test password';

let receiver: http.Server;
let receiverUrl: string;
const logoutTokens: string[] = [];

const api = useTestApi();
beforeAll(async () => {
  // The shared database: the BackchannelLogout workflow's activities (shared worker) read the clients there.
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      logoutTokens.push(new URLSearchParams(body).get('logout_token') ?? '');
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/bcl`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((r) => receiver.close(r));
});

/** `count` browsers signed in as one new user; each with its session's sid. */
async function browsers(count: number, target = api) {
  const email = uniqueEmail('sessions');
  const user = await createUser(target.deps.store, { email, password: PASSWORD });
  const agents: { agent: HttpUser; sid: string }[] = [];
  for (let i = 0; i < count; i++) {
    const agent = new HttpUser(target.url);
    const done = await agent.signIn(await agent.get('/login'), email, PASSWORD);
    expect(done.url).toBe(`${target.url}/account`);
    const sessions = await target.deps.store.sessions.find({ userId: user._id }).toArray();
    const known = new Set(agents.map((a) => a.sid));
    agents.push({ agent, sid: sessions.find((s) => !known.has(s.sid))!.sid });
  }
  return { user, agents };
}

const signedIn = async (agent: HttpUser) => (await agent.request('/account')).status === 200;

describe('idle timeout', () => {
  it('ends a signed-in session unused for longer than SESSION_IDLE_MINUTES, and writes lastSeenAt at most once a minute', async () => {
    const { user, agents } = await browsers(2);
    const [idle, active] = agents as [{ agent: HttpUser; sid: string }, { agent: HttpUser; sid: string }];
    const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000);
    await api.deps.store.sessions.updateOne({ sid: idle.sid }, { $set: { lastSeenAt: hoursAgo(13) } });
    await api.deps.store.sessions.updateOne({ sid: active.sid }, { $set: { lastSeenAt: hoursAgo(11) } });

    expect((await idle.agent.request('/account')).headers.get('location')).toBe('/login');
    expect(await api.deps.store.sessions.findOne({ sid: idle.sid })).toBeNull();

    expect(await signedIn(active.agent)).toBe(true);
    const touched = (await api.deps.store.sessions.findOne({ sid: active.sid }))!.lastSeenAt;
    expect(Date.now() - touched.getTime()).toBeLessThan(60_000);
    // Used again within the minute: not rewritten.
    expect(await signedIn(active.agent)).toBe(true);
    expect((await api.deps.store.sessions.findOne({ sid: active.sid }))!.lastSeenAt).toEqual(touched);
    expect(await api.deps.store.sessions.countDocuments({ userId: user._id })).toBe(1);
  });
});

describe('the sessions page', () => {
  it('lists the signed-in sessions, this one marked, and signs out another with back-channel logout', async () => {
    const { client } = await createClient(api.deps.store, {
      name: 'Sessions RP',
      redirectUris: [{ type: 'equals', value: 'https://sessions-rp.example/cb' }],
      backchannelLogoutUri: receiverUrl,
    });
    const { user, agents } = await browsers(2);
    const [me, other] = agents as [{ agent: HttpUser; sid: string }, { agent: HttpUser; sid: string }];
    await addSessionClient(api.deps.store, { sid: other.sid, expiresAt: new Date(Date.now() + 3600_000) }, client._id);

    const page = await (await me.agent.get('/account/sessions')).res.text();
    const list = /<ul class="sessions">[\s\S]*?<\/ul>/.exec(page)![0];
    expect(list.match(/<li[ >]/g)).toHaveLength(2);
    expect(page).toMatch(/<li aria-current="true"><strong>This browser<\/strong>/);
    expect(page.match(/Another browser/g)).toHaveLength(1);
    expect(page).toContain(`action="/account/sessions/${other.sid}/sign-out"`);

    const done = await me.agent.submit(page, `/account/sessions/${other.sid}/sign-out`, {});
    expect(done.res.status).toBe(200);
    expect(await done.res.text()).toContain('That session is signed out.');
    expect(await signedIn(other.agent)).toBe(false);
    expect(await signedIn(me.agent)).toBe(true);
    await eventually(() => expect(logoutTokens.map(jwtClaims)).toContainEqual(expect.objectContaining({ sid: other.sid, sub: user._id })), 30_000);

    // A forged form does nothing; neither does another user's session id.
    const stranger = (await browsers(1)).agents[0]!;
    const fresh = csrfOf(await (await me.agent.get('/account/sessions')).res.text());
    const forged = await me.agent.request(`/account/sessions/${stranger.sid}/sign-out`, {
      method: 'POST',
      body: new URLSearchParams({ csrf: 'forged' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(forged.status).toBe(400);
    const foreign = await me.agent.request(`/account/sessions/${stranger.sid}/sign-out`, {
      method: 'POST',
      body: new URLSearchParams({ csrf: fresh }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(await foreign.text()).toContain('That session had already ended.');
    expect(await signedIn(stranger.agent)).toBe(true);
  });

  it('signs out everywhere, this browser included, finding the sessions by `_id` only', async () => {
    const { user, agents } = await browsers(3);
    const me = agents[0]!;
    const page = await (await me.agent.get('/account/sessions')).res.text();
    const filters = await commandFilters(api.deps.store, ['sessions'], async () => {
      const done = await me.agent.submit(page, '/account/sessions/sign-out-everywhere', {});
      expect(await done.res.text()).toContain('Every browser where you were signed in is signed out.');
    });
    // FerretDB v1 reads every session for a filter but a lone `_id`: the user's sessions are found
    // through their list, and each is ended by `_id`.
    expect(filters.length).toBeGreaterThan(0);
    for (const f of filters) expect(Object.keys(f as object)).toEqual(['_id']);
    for (const { agent } of agents) expect(await signedIn(agent)).toBe(false);
    expect(await api.deps.store.sessions.countDocuments({ userId: user._id })).toBe(0);
  });
});

describe('with an https issuer', () => {
  it('sends HSTS on every response and names the cookies with the __Host- prefix', async () => {
    const secure = await startTestApi({ ISSUER: 'https://id.keyflow.test', PASSWORD_HASH_COST: '15', ...testDatabase('sessions_https').env });
    try {
      for (const path of ['/healthz', '/login', '/.well-known/openid-configuration', '/no-such-page']) {
        expect((await fetch(`${secure.url}${path}`)).headers.get('strict-transport-security')).toBe('max-age=63072000');
      }
      const login = await fetch(`${secure.url}/login`);
      const csrfCookie = login.headers.getSetCookie().find((c) => c.includes('kf_csrf='))!;
      expect(csrfCookie).toMatch(/^__Host-kf_csrf=/);

      const email = uniqueEmail('https');
      await createUser(secure.deps.store, { email, password: PASSWORD });
      const agent = new HttpUser(secure.url);
      const page = await (await agent.get('/login')).res.text();
      const res = await agent.request('/login', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf: csrfOf(page), email, password: PASSWORD }),
      });
      const sessionCookie = res.headers.getSetCookie().find((c) => c.includes('kf_session='))!;
      expect(sessionCookie).toMatch(/^__Host-kf_session=[A-Za-z0-9_-]{43};/);
      for (const cookie of [csrfCookie, sessionCookie]) {
        expect(cookie).toMatch(/; Secure/);
        expect(cookie).toMatch(/; Path=\/(;|$)/);
        expect(cookie).toMatch(/; HttpOnly/);
        expect(cookie).not.toMatch(/Domain=/i);
      }
      // The browser sends the cookie back under that name: signed in.
      expect(await signedIn(agent)).toBe(true);
    } finally {
      await secure.stop();
    }
    expect((await fetch(`${api.issuer}/healthz`)).headers.get('strict-transport-security')).toBeNull();
  });
});
