// A session's end must reach the clients it signed into (back-channel logout)
// and its sudo windows, and a user's "sign out everywhere" (or password
// change) every session they are signed in with. These are kept in lists read
// by `_id` (FerretDB v1 reads a whole collection for any other filter), so they
// cost the same however many sessions the site has. What an RP and a user
// observe: every client gets its logout token, every window ends, every
// session is found; parallel and repeated listings lose nothing and repeat
// nothing.
import type { AuditTrail } from '../../../lib/audit/audit-trail.js';
import { activeSudoWindow, openSudoWindow, type SudoDeps } from '../../../lib/step-up/sudo-windows.js';
import { s256Challenge } from '../../../lib/model/pkce.js';
import { SESSION_TTL_MS } from '../../../lib/model/sessions.js';
import { newId, newSecret } from '../../../lib/security/secrets.js';
import { createClient } from '../../../lib/store/clients.js';
import { openStore } from '../../../lib/store/db.js';
import { addToSessionList, readSessionList } from '../../../lib/store/session-lists.js';
import { createSession } from '../../../lib/store/sessions.js';
import { setSiteSetting } from '../../../lib/store/settings.js';
import { sudoWindows } from '../../../lib/store/sudo-windows.js';
import { sudoWindowId } from '../../../lib/model/sudo-window-id.js';
import { createUser } from '../../../lib/store/users.js';
import { userSessions } from '../../../lib/store/user-sessions.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { commandFilters } from '../../support/command-filters.js';
import { useTestApi, eventually } from '../../support/harness.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';

const PASSWORD = 'session lists test password';
const REDIRECT = 'https://session-lists-rp.example/cb';

let deps: SudoDeps & { audit: AuditTrail };
/** The RPs' back-channel logout endpoints (it records every request's raw body). */
let receiver: WebhookReceiver;

const api = useTestApi();
beforeAll(async () => {
  deps = {
    store: api.deps.store,
    audit: api.deps.audit,
    flows: { client: api.deps.temporal.client, taskQueue: api.deps.config.temporal.taskQueue },
  };
  await setSiteSetting(api.deps.store, 'sudo_mode_ttl_minutes', 10);
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver.close();
});

/** When a session signed in now would end (its lists expire with it). */
const sessionEnd = () => new Date(Date.now() + SESSION_TTL_MS);

/** An RP with a back-channel logout endpoint at `/bcl/<path>` of the receiver. */
async function rp(path: string) {
  const { client } = await createClient(api.deps.store, {
    name: `Session lists RP ${path}`,
    redirectUris: [{ type: 'equals', value: REDIRECT }],
    backchannelLogoutUri: `${receiver.url}/bcl/${path}`,
  });
  return client;
}

/** Asks `clientId` for a code in the agent's browser (consent given); the redirect with the code. */
async function authorize(agent: HttpUser, clientId: string, signIn?: { email: string }) {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'openid',
    code_challenge: s256Challenge(newSecret()),
    code_challenge_method: 'S256',
  });
  let step = await agent.get(`/api/oauth/authorize?${query}`);
  if (signIn) step = await agent.signIn(step, signIn.email, PASSWORD);
  // Consent is asked once per client; a second code goes straight back.
  if (!step.external) step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
  expect(step.external?.searchParams.get('code')).toEqual(expect.any(String));
  return step.external!;
}

/** The sid of the agent's session, as its clients see it (from the sessions page's own record). */
async function sidOf(userId: string): Promise<string> {
  const sessions = await api.deps.store.sessions.find({ userId }).toArray();
  expect(sessions).toHaveLength(1);
  return sessions[0]!.sid;
}

/** The logout tokens' sids received at `/bcl/<path>`. */
const logoutSids = (path: string) =>
  receiver
    .at(`/bcl/${path}`)
    .map((r) => JSON.parse(Buffer.from(new URLSearchParams(r.raw).get('logout_token')!.split('.')[1]!, 'base64url').toString()))
    .map((claims) => claims.sid as string);

describe('session lists', () => {
  it("a sign-out reaches every client of the session and ends its sudo windows, reading the session's lists by `_id` only", async () => {
    const tag = newId().slice(0, 8);
    const [first, second, third] = [await rp(`${tag}-1`), await rp(`${tag}-2`), await rp(`${tag}-3`)];
    const email = uniqueEmail('session-lists');
    const user = await createUser(api.deps.store, { email, password: PASSWORD });
    const agent = new HttpUser(api.url);
    await authorize(agent, first._id, { email });
    await authorize(agent, second._id);
    await authorize(agent, second._id); // a second code: listed once
    const sid = await sidOf(user._id);
    const windows = [first, third].map((c) => ({ userId: user._id, sid, clientId: c._id }));
    for (const key of windows) expect(await openSudoWindow(deps, key, sessionEnd())).not.toBeNull();

    const account = await (await agent.get('/account')).res.text();
    const filters = await commandFilters(api.deps.store, ['sessions', 'session_lists', 'session_clients', 'sudo_windows'], async () => {
      const out = await agent.submit(account, '/logout', {});
      expect(await out.res.text()).toContain('You are signed out');
    });
    expect(filters.length).toBeGreaterThan(0);
    for (const f of filters) expect(Object.keys(f as object)).toEqual(['_id']);

    await eventually(() => {
      expect(logoutSids(`${tag}-1`)).toEqual([sid]);
      expect(logoutSids(`${tag}-2`)).toEqual([sid]);
    }, 15_000);
    // The windows' flows write their end (signalled at sign-out) as they finish.
    await eventually(async () => {
      for (const key of windows) expect((await sudoWindows(api.deps.store).findOne({ _id: sudoWindowId(key) }))?.status).toBe('revoked');
    }, 15_000);
    for (const key of windows) expect(await activeSudoWindow(api.deps.store, key)).toBe(false);
    // The third client got no code: a sudo window does not make it a logout target.
    expect(logoutSids(`${tag}-3`)).toEqual([]);
  }, 60_000);

  it('keeps every client of parallel listings from two processes, each once, in a list without gaps', async () => {
    const sid = newId();
    const other = openStore(api.deps.config);
    try {
      const clients = Array.from({ length: 12 }, (_, i) => `client-${i}`);
      const session = { sid, expiresAt: sessionEnd() };
      // Each process lists every client, at the same time as the other.
      await Promise.all([api.deps.store, other].flatMap((store) => clients.map((c) => addToSessionList(store, 'clients', session, c))));
      expect((await readSessionList(api.deps.store, 'clients', sid)).sort()).toEqual([...clients].sort());
      const entries = await Promise.all(Array.from({ length: 24 }, (_, n) => api.deps.store.sessionLists.findOne({ _id: `clients:${sid}:${n}` })));
      const end = entries.findIndex((e) => e === null);
      expect(end).toBeGreaterThanOrEqual(12);
      expect(entries.slice(end).every((e) => e === null)).toBe(true);
      // Another list of the same session is its own.
      expect(await readSessionList(api.deps.store, 'sudo', sid)).toEqual([]);
    } finally {
      await other.client.close();
    }
  });

  it('lists a client again after a process died between its entry and its mark, and reads it once', async () => {
    const sid = newId();
    const session = { sid, expiresAt: sessionEnd() };
    await addToSessionList(api.deps.store, 'clients', session, 'client-a');
    // What a process that died after the entry leaves: the entry without its mark.
    await api.deps.store.sessionLists.deleteOne({ _id: `clients:${sid}|client-a` });
    const restarted = openStore(api.deps.config);
    try {
      await addToSessionList(restarted, 'clients', session, 'client-a');
      await addToSessionList(restarted, 'clients', session, 'client-b');
      expect(await readSessionList(restarted, 'clients', sid)).toEqual(['client-a', 'client-b']);
      expect(await restarted.sessionLists.findOne({ _id: `clients:${sid}|client-a` })).not.toBeNull();
    } finally {
      await restarted.client.close();
    }
  });

  it("finds every session of a user's parallel sign-ins from two processes, while any can be live, and no other user's", async () => {
    const userId = `user-${newId()}`;
    const other = openStore(api.deps.config);
    try {
      const auth = { userId, amr: ['pwd'], acr: 'pwd' as const };
      const created = await Promise.all([api.deps.store, other].flatMap((store) => Array.from({ length: 6 }, () => createSession(store, auth))));
      await createSession(api.deps.store, { ...auth, userId: `user-${newId()}` });
      await createSession(api.deps.store, null); // anonymous: in no list
      const sids = created.map((c) => c.session.sid).sort();
      const found = async (at: Date) => (await userSessions(api.deps.store, userId, at)).map((s) => s.sid).sort();
      expect(await found(new Date())).toEqual(sids);
      // Thirteen days on the sessions are still live and found; past their fourteen days they are not.
      expect(await found(new Date(Date.now() + 13 * 86_400_000))).toEqual(sids);
      expect(await found(new Date(Date.now() + SESSION_TTL_MS + 60_000))).toEqual([]);
    } finally {
      await other.client.close();
    }
  });
});
