// The social accounts API (/api/oauth/me/social_accounts): list with
// social:read, unlink with social:write, another user's account 404, the last
// way to sign in 409, a missing scope 403, bad input 4xx JSON. Parallel
// unlinks of the last two accounts leave at least one; deleting the last
// passkey of a passwordless account is refused too (409 page).
import { newId } from '../../../lib/security/secrets.js';
import { insertSocialAccount, socialAccountsOf } from '../../../lib/store/oauth-sources.js';
import { insertPasskey, listPasskeys } from '../../../lib/store/passkeys.js';
import { createSession } from '../../../lib/store/sessions.js';
import { createPasswordlessUser } from '../../../lib/store/passwordless-users.js';
import { createPersonalAccessToken } from '../../../lib/store/personal-access-tokens.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { newUser, uniqueEmail } from '../../../tools/fixtures/users.js';

const PASSWORD = 'social accounts api password';
const BASE = '/api/oauth/me/social_accounts';
const api = useTestApi();

async function link(userId: string, provider = 'upstream') {
  const account = { _id: newId(), userId, sourceId: newId(), provider, providerUserId: newId(), email: null, linkedAt: new Date(), lastSignInAt: null };
  expect(await insertSocialAccount(api.deps.store, account)).toBe(true);
  return account;
}
const token = async (userId: string, scope: string[]) =>
  (await createPersonalAccessToken(api.deps.store, userId, { name: 't', scope, expiresInDays: 1 })).token;
const body = (res: Response): Promise<Json> => res.json();
const call = (path: string, bearer: string, method = 'GET') => fetch(`${api.url}${path}`, { method, headers: { authorization: `Bearer ${bearer}` } });

describe('the social accounts API', () => {
  it('lists the user’s accounts, unlinks one, and refuses another user’s (404) and missing scopes (403)', async () => {
    const { user } = await newUser(api.deps, { prefix: 'social-api', password: PASSWORD });
    const { user: other } = await newUser(api.deps, { prefix: 'social-api-other', password: PASSWORD });
    const mine = await link(user._id);
    const theirs = await link(other._id);
    const read = await token(user._id, ['social:read']);
    const write = await token(user._id, ['social:write']);

    const list = await call(BASE, read);
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual({
      social_accounts: [{ id: mine._id, provider: 'upstream', provider_user_id: mine.providerUserId, linked_at: mine.linkedAt.toISOString() }],
    });

    const noScope = await call(BASE, write);
    expect(noScope.status).toBe(403);
    expect((await body(noScope)).error).toBe('insufficient_scope');
    expect((await call(`${BASE}/${mine._id}`, read, 'DELETE')).status).toBe(403);

    const stranger = await call(`${BASE}/${theirs._id}`, write, 'DELETE');
    expect(stranger.status).toBe(404);
    expect((await body(stranger)).error).toBe('not_found');
    expect(await socialAccountsOf(api.deps.store, other._id)).toHaveLength(1);

    expect((await call(`${BASE}/${mine._id}`, write, 'DELETE')).status).toBe(204);
    expect(await socialAccountsOf(api.deps.store, user._id)).toHaveLength(0);
    expect((await call(`${BASE}/${mine._id}`, write, 'DELETE')).status).toBe(404);
    expect((await call(BASE, 'not-a-token')).status).toBe(401);
  });

  it('refuses unlinking the last way to sign in with 409, and allows it once another account is linked', async () => {
    const user = await createPasswordlessUser(api.deps.store, { email: uniqueEmail('social-last'), emailVerified: true, name: null, username: null });
    const only = await link(user!._id);
    const write = await token(user!._id, ['social:write']);
    const refused = await call(`${BASE}/${only._id}`, write, 'DELETE');
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({ error: 'conflict', error_description: expect.stringContaining('only way to sign in') });
    await link(user!._id, 'second');
    expect((await call(`${BASE}/${only._id}`, write, 'DELETE')).status).toBe(204);
  });

  it('answers bad input with 4xx JSON, never 500', async () => {
    const { user } = await newUser(api.deps, { prefix: 'social-bad', password: PASSWORD });
    const write = await token(user._id, ['social:write', 'social:read']);
    for (const path of [`${BASE}/${'x'.repeat(5000)}`, `${BASE}/%ff`, `${BASE}/..%2f..`, `${BASE}/${encodeURIComponent('{"$ne":1}')}`]) {
      const res = await call(path, write, 'DELETE');
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.headers.get('content-type')).toMatch(/json/);
    }
    const post = await fetch(`${api.url}${BASE}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${write}`, 'content-type': 'application/json' },
      body: '{',
    });
    expect(post.status).toBeGreaterThanOrEqual(400);
    expect(post.status).toBeLessThan(500);
  });
});

/** A passwordless account (as a first "Sign in with …" creates it), with a write token. */
async function passwordless(prefix: string) {
  const user = await createPasswordlessUser(api.deps.store, { email: uniqueEmail(prefix), emailVerified: true, name: null, username: null });
  return { user: user!, write: await token(user!._id, ['social:write']) };
}

describe('the last way to sign in under parallel removals', () => {
  it('two parallel unlinks of the last two accounts never both succeed, and the answers match what remains', async () => {
    for (let round = 0; round < 10; round++) {
      const { user, write } = await passwordless(`social-race-${round}`);
      const [a, b] = [await link(user._id, 'first'), await link(user._id, 'second')];
      const answers = await Promise.all([a, b].map((account) => call(`${BASE}/${account._id}`, write, 'DELETE')));
      const statuses = answers.map((r) => r.status);
      const remaining = (await socialAccountsOf(api.deps.store, user._id)).map((x) => x._id);
      expect(remaining.length).toBeGreaterThanOrEqual(1);
      // Each 204 removed its account, each 409 left it linked.
      expect(statuses.every((st) => st === 204 || st === 409)).toBe(true);
      expect(remaining.sort()).toEqual(
        [a, b]
          .filter((_, i) => statuses[i] === 409)
          .map((x) => x._id)
          .sort(),
      );
      for (const r of answers) if (r.status === 409) expect((await body(r)).error_description).toContain('only way to sign in');
    }
  });
});

describe('deleting a passkey from the security page', () => {
  /** A signed-in, recent browser session for the user (as after "Sign in with …"), with its CSRF token. */
  async function session(userId: string) {
    const { token: cookie, session } = await createSession(api.deps.store, { userId, amr: ['fed'], acr: 'pwd' });
    return (path: string) =>
      fetch(`${api.url}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: `kf_session=${cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf: session.csrf }),
      });
  }
  async function addPasskey(userId: string) {
    const passkey = { _id: newId(), userId, publicKey: 'AA', counter: 0, transports: [], name: 'Laptop', createdAt: new Date(), lastUsedAt: null };
    await insertPasskey(api.deps.store, passkey);
    return passkey;
  }

  it('refuses the last passkey of a passwordless account (409 page) and deletes it once an account is linked', async () => {
    const { user } = await passwordless('passkey-last');
    const passkey = await addPasskey(user._id);
    const post = await session(user._id);
    const refused = await post(`/account/security/passkeys/${passkey._id}/delete`);
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('This passkey is your only way to sign in');
    expect(await listPasskeys(api.deps.store, user._id)).toHaveLength(1);

    await link(user._id);
    const deleted = await post(`/account/security/passkeys/${passkey._id}/delete`);
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get('location')).toBe('/account/security');
    expect(await listPasskeys(api.deps.store, user._id)).toHaveLength(0);
  });

  it('deletes a passkey of an account with a password, and not another user’s', async () => {
    const { user } = await newUser(api.deps, { prefix: 'passkey-pwd', password: PASSWORD });
    const { user: other } = await newUser(api.deps, { prefix: 'passkey-other', password: PASSWORD });
    const theirs = await addPasskey(other._id);
    const mine = await addPasskey(user._id);
    const post = await session(user._id);
    expect((await post(`/account/security/passkeys/${theirs._id}/delete`)).status).toBe(303);
    expect(await listPasskeys(api.deps.store, other._id)).toHaveLength(1);
    expect((await post(`/account/security/passkeys/${mine._id}/delete`)).status).toBe(303);
    expect(await listPasskeys(api.deps.store, user._id)).toHaveLength(0);
  });
});
