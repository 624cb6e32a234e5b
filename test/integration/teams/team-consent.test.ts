// Team and site scopes at consent, over HTTP: the team picker (inheritance
// counts), binding to the team picked, team:delete's stricter role, prompt=none,
// the union with aggregate scopes, the per-grant audit records, the team claims
// in the ID token and UserInfo, and the site-scope gate.
import { generate, generateSecret } from 'otplib';
import { auditRecords } from '../../support/audit.js';
import { findConsent } from '../../../lib/store/consents.js';
import { createTeam, userActor, type TeamDeps } from '../../../lib/teams/team-changes.js';
import { addGroup, changeMember } from '../../../lib/teams/member-changes.js';
import { joinTeam } from '../../support/teams.js';
import type { TeamDoc } from '../../../lib/model/teams.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newUser, type FixtureUser } from '../../../tools/fixtures/users.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { redeemCode, startFlow, teamPicker, type StartedFlow } from '../../support/consent-flow.js';
import { FLOW_PASSWORD, FLOW_REDIRECT, newTestRp, type TestRp } from '../../support/token-flow.js';
import { jwtClaims, postForm } from '../../support/http.js';
import { s256Challenge } from '../../../lib/model/pkce.js';
import { newSecret } from '../../../lib/security/secrets.js';

let deps: TeamDeps;
let owner: FixtureUser;
let admin: FixtureUser; // admin of the grandparent only
let top: TeamDoc, middle: TeamDoc, leaf: TeamDoc;
let rp: TestRp;

const actor = (u: FixtureUser) => userActor(u.id, { type: 'user', userId: u.id });
const slug = (p: string) =>
  `${p}-${newSecret()
    .slice(0, 8)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x')}`;

const api = useTestApi();
beforeAll(async () => {
  deps = api.deps;
  owner = await newUser(api.deps, { prefix: 'team-owner', password: FLOW_PASSWORD });
  admin = await newUser(api.deps, { prefix: 'team-admin', password: FLOW_PASSWORD });
  top = await createTeam(deps, actor(owner), { name: 'Top', slug: slug('top'), description: '', parent_id: null, member_groups_enabled: true });
  middle = await createTeam(deps, actor(owner), { name: 'Middle', slug: slug('mid'), description: '', parent_id: top._id, member_groups_enabled: false });
  leaf = await createTeam(deps, actor(owner), { name: 'Leaf <b>', slug: slug('leaf'), description: '', parent_id: middle._id, member_groups_enabled: false });
  await joinTeam(deps, owner, top._id, admin, 'admin');
  rp = await newTestRp(api, {
    allowedScopes: ['openid', 'profile', 'teams:read', 'team:read', 'team:delete', 'team:member:read', 'team:member:write', 'site:team:read'],
    oidcFields: ['teams'],
  });
});

const start = (user: FixtureUser, scope: string, extra: Record<string, string> = {}, agent?: HttpUser) => startFlow(api, rp, user, scope, extra, agent);
const redeem = (flow: StartedFlow, external: URL) => redeemCode(api, rp, flow, external);
const pickerOf = teamPicker;

describe('single-team scopes at consent', () => {
  it('lists every team the user manages, inheritance three levels deep, and binds the pick', async () => {
    const s = await start(admin, 'openid team:read team:member:write');
    expect(s.step.url).toContain('/consent');
    const page = await s.step.res.text();
    expect([...pickerOf(page).keys()].sort()).toEqual([top._id, middle._id, leaf._id].sort());
    expect(page).toContain('Leaf &lt;b&gt;');
    expect(page).toMatch(/you are admin through a parent team/);
    const done = await s.agent.submit(page, '/consent', { decision: 'allow', team: leaf._id });
    const tokens = await redeem(s, done.external!);
    expect(tokens.scope.split(' ').sort()).toEqual(['openid', `team:${leaf._id}:member:write`, `team:${leaf._id}:read`].sort());
    expect(jwtClaims(tokens.access_token).scope).not.toMatch(/(^| )team:(read|member:write)( |$)/);
    // Introspection and the consent record hold only the bound form.
    const intro = await postForm(api, '/api/oauth/introspect', { token: tokens.access_token }, rp.auth);
    expect(intro.body.scope.split(' ').sort()).toEqual(tokens.scope.split(' ').sort());
    const consent = await findConsent(api.deps.store, admin.id, rp.id);
    expect(consent!.scopes).toEqual(expect.arrayContaining([`team:${leaf._id}:read`, `team:${leaf._id}:member:write`]));
    expect(consent!.scopes).not.toContain('team:read');
    // Audited apart from the consent, with the team and the permissions.
    const grant = jwtClaims(tokens.access_token).grant_id;
    const records = await auditRecords(api.deps.store, { event: 'team.scope.grant', 'data.grant_id': grant });
    expect(records.map((r) => r.data)).toEqual([
      expect.objectContaining({
        team_id: leaf._id,
        user_id: admin.id,
        client_id: rp.id,
        permissions: [`team:${leaf._id}:read`, `team:${leaf._id}:member:write`],
      }),
    ]);
  });

  it('refuses team:delete to an inherited admin: listed, not selectable, and a forged pick is refused', async () => {
    const s = await start(admin, 'openid team:delete');
    const page = await s.step.res.text();
    expect(pickerOf(page).get(leaf._id)).toBe(true);
    expect(page).not.toContain('value="allow"');
    const refused = await s.agent.submit(page.replace('</form>', '<button name="decision" value="allow">Allow</button></form>'), '/consent', {
      decision: 'allow',
      team: leaf._id,
    });
    expect(refused.res.status).toBe(403);
    expect(await refused.res.text()).toMatch(/needs the owner or co-owner role; yours is admin/);
    // The owner may.
    const o = await start(owner, 'openid team:delete');
    const done = await o.agent.submit(await o.step.res.text(), '/consent', { decision: 'allow', team: leaf._id });
    expect((await redeem(o, done.external!)).scope).toBe(`openid team:${leaf._id}:delete`);
  });

  it('refuses a team the user does not manage, and a missing pick', async () => {
    const stranger = await newUser(api.deps, { prefix: 'team-stranger', password: FLOW_PASSWORD });
    const s = await start(stranger, 'openid team:read');
    const page = await s.step.res.text();
    expect(pickerOf(page).size).toBe(0);
    expect(page).toMatch(/you manage none/);
    const forged = page.replace('</form>', '<button name="decision" value="allow">Allow</button></form>');
    expect((await s.agent.submit(forged, '/consent', { decision: 'allow', team: leaf._id })).res.status).toBe(403);
    expect((await s.agent.submit(forged, '/consent', { decision: 'allow' })).res.status).toBe(400);
  });

  it('prompt=none: consent_required without a prior consent for a team; the one team consented before is reused', async () => {
    const user = await newUser(api.deps, { prefix: 'team-none', password: FLOW_PASSWORD });
    const own = await createTeam(deps, actor(user), { name: 'Own', slug: slug('own'), description: '', parent_id: null, member_groups_enabled: false });
    const signedIn = (await start(user, 'openid')).agent; // signs in, consents to openid only
    const first = await start(user, 'openid team:read', { prompt: 'none' }, signedIn);
    expect(first.step.external?.searchParams.get('error')).toBe('consent_required');
    const picked = await start(user, 'openid team:read', {}, signedIn);
    const done = await picked.agent.submit(await picked.step.res.text(), '/consent', { decision: 'allow', team: own._id });
    await redeem(picked, done.external!);
    const silent = await start(user, 'openid team:read', { prompt: 'none' }, signedIn);
    expect((await redeem(silent, silent.step.external!)).scope).toBe(`openid team:${own._id}:read`);
    // Two teams consented before: the user must pick again.
    const second = await createTeam(deps, actor(user), {
      name: 'Second',
      slug: slug('second'),
      description: '',
      parent_id: null,
      member_groups_enabled: false,
    });
    const again = await start(user, 'openid team:read', { prompt: 'consent' }, signedIn);
    await again.agent.submit(await again.step.res.text(), '/consent', { decision: 'allow', team: second._id });
    const ambiguous = await start(user, 'openid team:read', { prompt: 'none' }, signedIn);
    expect(ambiguous.step.external?.searchParams.get('error')).toBe('consent_required');
  });

  it('grants the union of aggregate and single-team scopes', async () => {
    const s = await start(owner, 'openid teams:read team:member:read');
    const done = await s.agent.submit(await s.step.res.text(), '/consent', { decision: 'allow', team: middle._id });
    expect((await redeem(s, done.external!)).scope).toBe(`openid teams:read team:${middle._id}:member:read`);
  });
});

describe('team claims', () => {
  it('puts teams, in_team_, role_in_team_ and groups_in_team_ (only when held) in the ID token, and the same in UserInfo', async () => {
    const member = await newUser(api.deps, { prefix: 'team-claims', password: FLOW_PASSWORD });
    await addGroup(deps, actor(owner), top._id, { slug: 'ops', name: 'Operations' });
    await joinTeam(deps, owner, top._id, member, 'member', ['ops']);
    await joinTeam(deps, owner, middle._id, member, 'admin');
    const s = await start(member, 'openid teams:read');
    const done = await s.agent.submit(await s.step.res.text(), '/consent', { decision: 'allow' });
    const tokens = await redeem(s, done.external!);
    const id = jwtClaims(tokens.id_token);
    // Nearest first: the two direct memberships, then the leaf below them.
    expect(id.teams.slice(0, 2)).toEqual(
      expect.arrayContaining([
        { id: top._id, name: 'Top', role: 'member', groups: ['ops'] },
        { id: middle._id, name: 'Middle', role: 'admin', groups: [] },
      ]),
    );
    expect(id.teams[2]).toEqual({ id: leaf._id, name: 'Leaf <b>', role: 'admin', groups: [] });
    expect(id[`in_team_${top._id}`]).toBe(true);
    expect(id[`role_in_team_${top._id}`]).toBe('member');
    expect(id[`groups_in_team_${top._id}`]).toEqual(['ops']);
    // Inherited: the leaf's role comes from the middle team.
    expect(id[`role_in_team_${leaf._id}`]).toBe('admin');
    // Member groups disabled on the middle team, and no group held: the claim is omitted, never [].
    expect(id).not.toHaveProperty(`groups_in_team_${middle._id}`);
    expect(id).not.toHaveProperty(`groups_in_team_${leaf._id}`);
    // A group taken away: omitted.
    await changeMember(deps, actor(owner), top._id, member.id, { groups: [] });
    const info = await fetch(`${api.url}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } }).then((r) => r.json());
    expect(info).not.toHaveProperty(`groups_in_team_${top._id}`);
    const {
      [`groups_in_team_${top._id}`]: _gone,
      auth_time: _a,
      amr: _m,
      acr: _c,
      sid: _s,
      iss: _i,
      aud: _u,
      iat: _t,
      exp: _e,
      nonce: _n,
      at_hash: _h,
      ...sameAsIdToken
    } = id;
    const teamsNow = id.teams.map((t: Json) => (t.id === top._id ? { ...t, groups: [] } : t));
    expect(info).toEqual({ ...sameAsIdToken, teams: teamsNow });
  });

  it('with a bound scope only, names only the bound team', async () => {
    const s = await start(owner, 'openid team:read');
    const done = await s.agent.submit(await s.step.res.text(), '/consent', { decision: 'allow', team: leaf._id });
    const id = jwtClaims((await redeem(s, done.external!)).id_token);
    expect(Object.keys(id).filter((k) => k.includes('_team_'))).toEqual([`in_team_${leaf._id}`, `role_in_team_${leaf._id}`]);
    expect(id).not.toHaveProperty('teams');
  });
});

describe('the site-scope gate', () => {
  it('refuses a user who is not a site admin', async () => {
    const s = await start(owner, 'openid site:team:read');
    expect(s.step.external?.searchParams.get('error')).toBe('invalid_scope');
  });

  it('refuses an admin without a second factor: no Allow, and a forged Allow is refused', async () => {
    const plain = await newUser(api.deps, { prefix: 'site-plain', password: FLOW_PASSWORD, admin: true });
    const s = await start(plain, 'openid site:team:read');
    const page = await s.step.res.text();
    expect(page).toMatch(/Set up a second factor/);
    expect(page).not.toContain('value="allow"');
    const forged = page.replace('</form>', '<button name="decision" value="allow">Allow</button></form>');
    const refused = await s.agent.submit(forged, '/consent', { decision: 'allow', confirmation: 'grant site access' });
    expect(refused.res.status).toBe(403);
    expect(refused.external).toBeUndefined();
  });

  it('needs the exact phrase and a second factor now; then grants and audits', async () => {
    const secret = generateSecret();
    const siteAdmin = await newUser(api.deps, { prefix: 'site-admin', password: FLOW_PASSWORD, admin: true, totpSecret: secret });
    const agent = new HttpUser(api.url);
    const verifier = newSecret();
    const url = new URL('/api/oauth/authorize', api.url);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: rp.id,
      redirect_uri: FLOW_REDIRECT,
      scope: 'openid site:team:read',
      code_challenge: s256Challenge(verifier),
      code_challenge_method: 'S256',
    }))
      url.searchParams.set(k, v);
    let step = await agent.signIn(await agent.get(url.href), siteAdmin.email, FLOW_PASSWORD);
    step = await agent.submit(await step.res.text(), '/login/second-factor', { code: await generate({ secret }) });
    expect(step.url).toContain('/consent');
    let page = await step.res.text();
    const wrongPhrase = await agent.submit(page, '/consent', { decision: 'allow', confirmation: 'Grant site access', code: siteAdmin.backupCodes[0]! });
    expect(wrongPhrase.res.status).toBe(400);
    page = await wrongPhrase.res.text();
    expect(page).toMatch(/Type exactly/);
    const noFactor = await agent.submit(page, '/consent', { decision: 'allow', confirmation: 'grant site access' });
    expect(noFactor.res.status).toBe(400);
    const badCode = await agent.submit(await noFactor.res.text(), '/consent', { decision: 'allow', confirmation: 'grant site access', code: '000000' });
    expect(badCode.res.status).toBe(401);
    const granted = await agent.submit(await badCode.res.text(), '/consent', {
      decision: 'allow',
      confirmation: 'grant site access',
      code: siteAdmin.backupCodes[1]!,
    });
    const tokens = await redeem({ agent, verifier, step: granted }, granted.external!);
    expect(tokens.scope).toBe('openid site:team:read');
    const records = await auditRecords(api.deps.store, { event: 'site.scope.grant', 'data.grant_id': jwtClaims(tokens.access_token).grant_id });
    expect(records.map((r) => r.data)).toEqual([
      expect.objectContaining({ user_id: siteAdmin.id, client_id: rp.id, scopes: ['site:team:read'], second_factor: 'backup' }),
    ]);
    // Every authorization with a site scope passes the gate again: prompt=none cannot skip it.
    const url2 = new URL(url);
    url2.searchParams.set('prompt', 'none');
    expect((await agent.get(url2.href)).external?.searchParams.get('error')).toBe('consent_required');
  });
});
