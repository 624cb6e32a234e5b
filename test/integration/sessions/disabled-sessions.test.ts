// A sign-in that passed the disabled check just before an admin disabled the
// account leaves a session the admin's sign-out did not find. Simulated here
// by marking the user disabled in the store without ending their sessions:
// that session no longer opens the account pages, the admin console (for an
// admin) or an authorization request; it is ended at its next request (it
// stays ended when the account is enabled again), and signing in again is
// refused as disabled.
import { s256Challenge } from '../../../lib/model/pkce.js';
import { newSecret } from '../../../lib/security/secrets.js';
import { useTestApi } from '../../support/harness.js';
import { FLOW_PASSWORD, FLOW_REDIRECT, newTestRp, runCodeFlow, type TestRp } from '../../support/token-flow.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { testDatabase } from '../../support/database.js';

const ACCOUNT_PAGES = [
  '/account',
  '/account/apps',
  '/account/domains',
  '/account/gpg-keys',
  '/account/password',
  '/account/security',
  '/account/sessions',
  '/account/social',
  '/account/teams',
  '/account/tokens',
];

let rp: TestRp;
const api = useTestApi(testDatabase('disabled_sessions').env);
beforeAll(async () => {
  rp = await newTestRp(api);
}, 60_000);

/** A new user (an admin if asked) signed in with a browser of their own. */
async function signedIn(admin = false) {
  const { user, email } = await newUser(api.deps, { prefix: 'race', password: FLOW_PASSWORD, admin });
  const agent = new HttpUser(api.url);
  const done = await agent.signIn(await agent.get('/login'), email, FLOW_PASSWORD);
  expect(done.url).toMatch(/\/account$/);
  return { user, email, agent };
}

/** What the racing sign-in leaves: the account disabled, its sessions untouched. */
const disable = (userId: string, disabled = true) => api.deps.store.users.updateOne({ _id: userId }, { $set: { disabled } });
const sessionsOf = (userId: string) => api.deps.store.sessions.countDocuments({ userId });

/** The answer to a page request, redirects not followed. */
async function page(agent: HttpUser, path: string) {
  const res = await agent.request(path);
  return { status: res.status, location: res.headers.get('location') };
}

describe("a disabled user's session", () => {
  it.each(ACCOUNT_PAGES)('no longer opens %s: the browser is sent to sign in', async (path) => {
    const { user, agent } = await signedIn();
    expect((await page(agent, path)).status).toBe(200);
    await disable(user._id);
    expect(await page(agent, path)).toEqual({ status: 303, location: '/login' });
  });

  it('is ended at its next request, stays ended when the account is enabled again, and signing in again is refused', async () => {
    const { user, email, agent } = await signedIn();
    expect(await sessionsOf(user._id)).toBe(1);
    await disable(user._id);
    expect(await page(agent, '/account')).toEqual({ status: 303, location: '/login' });
    expect(await sessionsOf(user._id)).toBe(0);

    const refused = await agent.signIn(await agent.get('/login'), email, FLOW_PASSWORD);
    expect(refused.res.status).toBe(403);
    expect(await refused.res.text()).toContain('This account is disabled.');

    await disable(user._id, false);
    expect(await page(agent, '/account')).toEqual({ status: 303, location: '/login' });
  });

  it('no longer opens the admin console for an admin', async () => {
    const { user, agent } = await signedIn(true);
    expect((await page(agent, '/admin')).status).toBe(200);
    expect((await page(agent, '/admin/users')).status).toBe(200);
    await disable(user._id);
    expect(await page(agent, '/admin/users')).toEqual({ status: 303, location: '/login' });
    expect(await page(agent, '/admin')).toEqual({ status: 303, location: '/login' });
    expect(await sessionsOf(user._id)).toBe(0);
  });

  it('no longer authorizes an application: the request goes to sign-in, no code is issued', async () => {
    // Signed in and consented once: another request would get its code at once.
    const { user, agent } = await runCodeFlow(api, rp, 'openid profile');
    await disable(user._id);
    const url = new URL('/api/oauth/authorize', api.url);
    const query = {
      response_type: 'code',
      client_id: rp.id,
      redirect_uri: FLOW_REDIRECT,
      scope: 'openid profile',
      code_challenge: s256Challenge(newSecret()),
      code_challenge_method: 'S256',
    };
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const res = await agent.request(url.href);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/^\/login\?request=/);
    expect(await sessionsOf(user._id)).toBe(0);
  });
});
