// Personal access tokens: created, listed and revoked at /account/tokens,
// shown once, stored hashed, accepted as Bearer tokens at /api/oauth/me/*,
// refused after revocation or expiry and without the scope.
import { hashSecret } from '../../../lib/security/secrets.js';
import { PAT_COLLECTION, personalAccessTokenContext } from '../../../lib/store/personal-access-tokens.js';
import { createUser } from '../../../lib/store/users.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { csrfOf } from '../../support/http.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';

const PASSWORD = 'pat test password';
const api = useTestApi();

async function signedInAgent(admin = false) {
  const email = uniqueEmail('pat');
  const user = await createUser(api.deps.store, { email, password: PASSWORD, name: 'PAT User', admin });
  const agent = new HttpUser(api.issuer);
  await agent.signIn(await agent.get('/login'), email, PASSWORD);
  return { agent, user };
}

async function createPat(agent: HttpUser, name: string, scopes: string[], days = '30') {
  const page = await (await agent.get('/account/tokens')).res.text();
  const body = new URLSearchParams({ csrf: csrfOf(page), name, expires_in_days: days });
  for (const s of scopes) body.append('scope', s);
  const res = await agent.request('/account/tokens', { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  const text = await res.text();
  return { res, text, token: /kfpat_[A-Za-z0-9_-]{43}/.exec(text)?.[0] };
}

const patch = (token: string, body: unknown) =>
  fetch(`${api.issuer}/api/oauth/me/profile`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('personal access tokens', () => {
  it('are created on the page, shown once, stored hashed, and listed by name', async () => {
    const { agent, user } = await signedInAgent();
    const { res, token } = await createPat(agent, 'deploy script', ['profile:write', 'apps:read']);
    expect(res.status).toBe(200);
    expect(token).toBeDefined();
    const doc = await api.deps.store.db.collection(PAT_COLLECTION).findOne({ _id: hashSecret(token!) as never });
    expect(doc).toMatchObject({ userId: user._id, name: 'deploy script', scope: ['profile:write', 'apps:read'], expiresAt: expect.any(Date) });
    expect(JSON.stringify(doc)).not.toContain(token!.slice(6));
    const list = await (await agent.get('/account/tokens')).res.text();
    expect(list).toContain('deploy script');
    expect(list).not.toContain(token!);
  });

  it('are accepted at /api/oauth/me/profile and /api/oauth/me/apps with the scope, and refused without it', async () => {
    const { agent, user } = await signedInAgent();
    const { token } = await createPat(agent, 'profile', ['profile:write', 'apps:read']);
    const ok = await patch(token!, { name: 'Renamed by PAT' });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as Json).name).toBe('Renamed by PAT');
    expect((await api.deps.store.users.findOne({ _id: user._id }))!.name).toBe('Renamed by PAT');
    const apps = await fetch(`${api.issuer}/api/oauth/me/apps`, { headers: { authorization: `Bearer ${token}` } });
    expect(apps.status).toBe(200);
    expect((await apps.json()) as Json).toEqual({ apps: [] });
    // Every token expires: no lifetime is refused.
    expect((await createPat(agent, 'forever', ['apps:read'], '')).res.status).toBe(400);

    const { token: readOnly } = await createPat(agent, 'read only', ['apps:read']);
    const denied = await patch(readOnly!, { name: 'x' });
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as Json).error).toBe('insufficient_scope');
    expect(denied.headers.get('www-authenticate')).toMatch(/^Bearer .*error="insufficient_scope"/);
    // UserInfo needs openid, which this token does not carry.
    expect((await fetch(`${api.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${readOnly}` } })).status).toBe(403);
    const { token: withOpenid } = await createPat(agent, 'oidc', ['openid', 'profile']);
    const info = await fetch(`${api.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${withOpenid}` } });
    expect(info.status).toBe(200);
    expect(((await info.json()) as Json).sub).toBe(user._id);
  });

  it('are refused after revocation and after expiry', async () => {
    const { agent } = await signedInAgent();
    const { token } = await createPat(agent, 'to revoke', ['profile:write']);
    expect((await patch(token!, { name: 'a' })).status).toBe(200);
    const page = await (await agent.get('/account/tokens')).res.text();
    const id = /action="\/account\/tokens\/([^/"]+)\/revoke"/.exec(page)![1]!;
    // Revocation needs the CSRF token.
    const forged = await agent.request(`/account/tokens/${id}/revoke`, {
      method: 'POST',
      body: new URLSearchParams({ csrf: 'forged' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(forged.status).toBe(400);
    expect((await patch(token!, { name: 'b' })).status).toBe(200);
    const revoked = await agent.submit(page, `/account/tokens/${id}/revoke`, {});
    expect(revoked.res.status).toBe(200);
    expect(await api.deps.store.db.collection(PAT_COLLECTION).findOne({ _id: hashSecret(token!) as never })).toBeNull();
    const after = await patch(token!, { name: 'c' });
    expect(after.status).toBe(401);
    expect(((await after.json()) as Json).error).toBe('invalid_token');

    const { token: expiring } = await createPat(agent, 'expiring', ['profile:write'], '1');
    expect((await patch(expiring!, { name: 'd' })).status).toBe(200);
    await api.deps.store.db.collection(PAT_COLLECTION).updateOne({ _id: hashSecret(expiring!) as never }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await patch(expiring!, { name: 'e' })).status).toBe(401);
    // A made-up token with the prefix is just invalid.
    expect((await patch('kfpat_' + 'A'.repeat(43), { name: 'f' })).status).toBe(401);
  });

  it('offer only user-grantable scopes: no site scopes, admin scopes only to admins', async () => {
    const { agent } = await signedInAgent();
    const page = await (await agent.get('/account/tokens')).res.text();
    expect(page).toContain('value="apps:write"');
    expect(page).not.toContain('value="site:');
    expect(page).not.toContain('value="admin:');
    for (const scope of ['admin:users:read', 'site:user:read', 'offline_access', 'nonsense']) {
      const { res, token } = await createPat(agent, 'bad', [scope]);
      expect(res.status).toBe(400);
      expect(token).toBeUndefined();
    }
    const { res: noScope } = await createPat(agent, 'none', []);
    expect(noScope.status).toBe(400);
    const { res: noName } = await createPat(agent, '', ['apps:read']);
    expect(noName.status).toBe(400);

    const { agent: admin } = await signedInAgent(true);
    const adminPage = await (await admin.get('/account/tokens')).res.text();
    expect(adminPage).toContain('value="admin:users:read"');
    expect(adminPage).not.toContain('value="site:');
    const adminPat = (await createPat(admin, 'admin', ['admin:users:read', 'apps:read'])).token!;
    expect((await personalAccessTokenContext(api.deps.store, adminPat))!.scope).toEqual(['admin:users:read', 'apps:read']);
    // Admin scopes lapse when the user is no longer an admin; a deleted user's tokens stop working.
    const adminId = (await personalAccessTokenContext(api.deps.store, adminPat))!.userId;
    await api.deps.store.users.updateOne({ _id: adminId }, { $set: { role: 'user' } });
    expect((await personalAccessTokenContext(api.deps.store, adminPat))!.scope).toEqual(['apps:read']);
    await api.deps.store.users.deleteOne({ _id: adminId });
    expect(await personalAccessTokenContext(api.deps.store, adminPat)).toBeNull();
  });

  it('sends a signed-out browser to sign-in and refuses a create form without CSRF', async () => {
    const anon = new HttpUser(api.issuer);
    expect((await anon.request('/account/tokens')).headers.get('location')).toBe('/login');
    const { agent } = await signedInAgent();
    const res = await agent.request('/account/tokens', {
      method: 'POST',
      body: new URLSearchParams({ name: 'x', scope: 'apps:read', expires_in_days: '1' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(400);
    expect(await res.text()).not.toMatch(/kfpat_/);
  });
});
