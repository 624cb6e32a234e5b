// The single-team API (/api/oauth/me/team/:teamId) with tokens bound at
// consent, and the cross-instance API (/api/oauth/site/teams) with tokens
// granted through the site gate: what each token reaches, the member-write cap
// on every change, and the role re-checked on every request.
import { generate, generateSecret } from 'otplib';
import type { TeamDoc } from '../../../lib/model/teams.js';
import { auditRecords } from '../../support/audit.js';
import { createTeam, userActor, type TeamDeps } from '../../../lib/teams/team-changes.js';
import { changeMember } from '../../../lib/teams/member-changes.js';
import { joinTeam } from '../../support/teams.js';
import { acceptInvitation } from '../../../lib/teams/invitations.js';
import { findMember, findTeam } from '../../../lib/store/teams.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newUser, type FixtureUser } from '../../../tools/fixtures/users.js';
import { redeemCode, startFlow, tokensForTeam } from '../../support/consent-flow.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { requestJson } from '../../support/http.js';
import { FLOW_PASSWORD, newTestRp, type TestRp } from '../../support/token-flow.js';
import { newSecret } from '../../../lib/security/secrets.js';

let deps: TeamDeps;
let rp: TestRp;
let owner: FixtureUser;
let admin: FixtureUser; // admin of `top` (so of `mid` by inheritance) and of `other`
let top: TeamDoc, mid: TeamDoc, other: TeamDoc;

const actor = (u: FixtureUser) => userActor(u.id, { type: 'user', userId: u.id });
const slug = (p: string) =>
  `${p}-${newSecret()
    .slice(0, 10)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x')}`;
const team = (name: string, parent: TeamDoc | null, by: FixtureUser) =>
  createTeam(deps, actor(by), { name, slug: slug(name.toLowerCase()), description: '', parent_id: parent?._id ?? null, member_groups_enabled: false });

const call = async (token: string, method: string, path: string, body?: unknown) => {
  const answer = await requestJson(`${api.url}${path}`, method, { token, body });
  return { ...answer, challenge: answer.res.headers.get('www-authenticate') };
};

const api = useTestApi();
beforeAll(async () => {
  deps = api.deps;
  rp = await newTestRp(api, {
    allowedScopes: [
      'openid',
      'team:read',
      'team:write',
      'team:delete',
      'team:member:read',
      'team:member:write',
      'team:member:profile:read',
      'site:team:read',
      'site:team:write',
      'site:team:delete',
    ],
  });
  owner = await newUser(api.deps, { prefix: 'bound-owner', password: FLOW_PASSWORD, name: 'Olive Owner' });
  admin = await newUser(api.deps, { prefix: 'bound-admin', password: FLOW_PASSWORD });
  top = await team('Top', null, owner);
  mid = await team('Mid', top, owner);
  other = await team('Other', null, owner);
  await joinTeam(deps, owner, top._id, admin, 'admin');
  await joinTeam(deps, owner, other._id, admin, 'admin');
});

describe('a token bound to one team', () => {
  it('reaches that team and answers 403 insufficient_scope for any other', async () => {
    const tokens = await tokensForTeam(api, rp, admin, 'openid team:read team:member:read', mid._id);
    const at = tokens.access_token as string;
    const read = await call(at, 'GET', `/api/oauth/me/team/${mid._id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: mid._id, name: 'Mid', role: 'admin', inherited: true });
    const members = await call(at, 'GET', `/api/oauth/me/team/${mid._id}/members`);
    expect(members.status).toBe(200);
    expect(members.body.members).toEqual([expect.objectContaining({ user_id: owner.id, role: 'owner' })]);
    expect(members.body.members[0]).not.toHaveProperty('name');
    // The user manages `other` too, but the token names only `mid`.
    for (const path of [`/api/oauth/me/team/${other._id}`, `/api/oauth/me/team/${other._id}/members`, `/api/oauth/me/team/${top._id}`]) {
      const refused = await call(at, 'GET', path);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toBe('insufficient_scope');
      expect(refused.challenge).toMatch(/error="insufficient_scope"/);
    }
    // Nor the caller's-teams API, nor the site API (404 to anyone who is not a site admin, before any scope check).
    expect((await call(at, 'GET', '/api/oauth/me/teams')).status).toBe(403);
    expect((await call(at, 'GET', '/api/oauth/site/teams')).status).toBe(404);
    // Read only: no change.
    expect((await call(at, 'PATCH', `/api/oauth/me/team/${mid._id}`, { name: 'Renamed' })).status).toBe(403);
  });

  it('lists member profiles only with team:member:profile:read, never their email', async () => {
    const tokens = await tokensForTeam(api, rp, admin, 'openid team:member:profile:read', mid._id);
    const members = await call(tokens.access_token, 'GET', `/api/oauth/me/team/${mid._id}/members`);
    expect(members.status).toBe(200);
    expect(members.body.members[0]).toMatchObject({ user_id: owner.id, name: 'Olive Owner', preferred_username: expect.any(String) });
    expect(JSON.stringify(members.body)).not.toContain(owner.email);
  });

  it('caps member writes at the granting user’s role on every change, and re-checks the role on every request', async () => {
    const at = (await tokensForTeam(api, rp, admin, 'openid team:member:write', mid._id)).access_token as string;
    const joiner = await newUser(api.deps, { prefix: 'bound-joiner', password: FLOW_PASSWORD });
    const path = `/api/oauth/me/team/${mid._id}/members`;
    for (const role of ['owner', 'co-owner']) expect((await call(at, 'POST', path, { user: joiner.email, role })).status).toBe(403);
    // The app goes through the same invitation as its user: the joiner is a member only once they accept.
    const invited = await call(at, 'POST', path, { user: joiner.email, role: 'admin' });
    expect([invited.status, invited.body.user, invited.body.role]).toEqual([202, joiner.email, 'admin']);
    expect(await findMember(deps.store, mid._id, joiner.id)).toBeNull();
    expect((await call(at, 'PATCH', `${path}/${joiner.id}`, { role: 'member' })).status).toBe(404);
    await acceptInvitation(deps, joiner.id, invited.body.id, { type: 'user', userId: joiner.id });
    expect((await call(at, 'PATCH', `${path}/${joiner.id}`, { role: 'owner' })).status).toBe(403);
    expect((await call(at, 'PATCH', `${path}/${joiner.id}`, { role: 'member' })).body).toMatchObject({ user_id: joiner.id, role: 'member' });
    // The owner cannot be demoted or removed by an admin.
    expect((await call(at, 'PATCH', `${path}/${owner.id}`, { role: 'member' })).status).toBe(403);
    expect((await call(at, 'DELETE', `${path}/${owner.id}`)).status).toBe(403);
    // The grant does not outlive the role: demoted on the parent team, the same token can no longer manage members.
    await changeMember(deps, actor(owner), top._id, admin.id, { role: 'member' });
    try {
      const refused = await call(at, 'POST', path, {
        user: (await newUser(api.deps, { prefix: 'bound-late', password: FLOW_PASSWORD })).email,
        role: 'member',
      });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toBe('access_denied');
    } finally {
      await changeMember(deps, actor(owner), top._id, admin.id, { role: 'admin' });
    }
  });

  it('changes settings and groups with team:write but never moves the team', async () => {
    const at = (await tokensForTeam(api, rp, admin, 'openid team:write', mid._id)).access_token as string;
    expect((await call(at, 'PATCH', `/api/oauth/me/team/${mid._id}`, { parent_id: null })).status).toBe(400);
    const renamed = await call(at, 'PATCH', `/api/oauth/me/team/${mid._id}`, { description: 'set through a bound token' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.description).toBe('set through a bound token');
    expect((await call(at, 'POST', `/api/oauth/me/team/${mid._id}/groups`, { slug: 'ops', name: 'Ops' })).status).toBe(201);
  });

  it('never moves a team for a co-owner’s app either: not under a team the co-owner owns, not to the top level', async () => {
    const coOwner = await newUser(api.deps, { prefix: 'bound-co-owner', password: FLOW_PASSWORD });
    const taken = await team('Taken', null, owner);
    await joinTeam(deps, owner, taken._id, coOwner, 'co-owner');
    const own = await team('Own', null, coOwner);
    const at = (await tokensForTeam(api, rp, coOwner, 'openid team:read team:write team:member:write', taken._id)).access_token as string;
    for (const parent_id of [own._id, null]) {
      const moved = await call(at, 'PATCH', `/api/oauth/me/team/${taken._id}`, { parent_id });
      expect([moved.status, moved.body.error]).toEqual([400, 'invalid_request']);
    }
    const other = await tokensForTeam(api, rp, coOwner, 'openid team:write', own._id);
    expect((await call(other.access_token, 'PATCH', `/api/oauth/me/team/${taken._id}`, { parent_id: own._id })).status).toBe(403);
    expect((await findTeam(deps.store, taken._id))?.parentId).toBeNull();
    expect((await findMember(deps.store, taken._id, owner.id))?.role).toBe('owner');
  });

  it('answers bad input with a 4xx JSON error, never a 500', async () => {
    const scope = 'openid team:read team:write team:delete team:member:read team:member:write';
    const at = (await tokensForTeam(api, rp, owner, scope, other._id)).access_token as string;
    const base = `/api/oauth/me/team/${other._id}`;
    const cases: [string, string, unknown][] = [
      ['PATCH', base, { name: 42 }],
      ['PATCH', base, { slug: 'Not A Slug' }],
      ['PATCH', base, { unknown: true }],
      ['PATCH', base, {}],
      ['PATCH', base, 'not an object'],
      ['DELETE', `${base}?cascade=maybe`, undefined],
      ['POST', `${base}/members`, { user: '', role: 'member' }],
      ['POST', `${base}/members`, { user: 'x'.repeat(400), role: 'member' }],
      ['DELETE', `${base}/invitations/not$an$id`, undefined],
      ['POST', `${base}/members`, { user: owner.email, role: 'emperor' }],
      ['PATCH', `${base}/members/${'x'.repeat(300)}`, { role: 'member' }],
      ['PATCH', `${base}/members/${admin.id}`, { groups: ['no-such-group'] }],
      ['POST', `${base}/groups`, { slug: '', name: 'x' }],
      ['DELETE', `${base}/groups/NOT_A_SLUG`, undefined],
      ['GET', '/api/oauth/me/team/not%20an%20id', undefined],
      ['PUT', base, { name: 'x' }],
    ];
    for (const [method, path, body] of cases) {
      const r = await call(at, method, path, body);
      expect([method, path, r.status >= 400 && r.status < 500]).toEqual([method, path, true]);
      expect(r.body).toEqual({ error: expect.any(String), error_description: expect.any(String) });
    }
    const raw = await fetch(`${api.url}${base}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${at}`, 'content-type': 'application/json' },
      body: '{"name":',
    });
    expect(raw.status).toBe(400);
  });

  it('deletes with team:delete (owner), after which the team is gone', async () => {
    const doomed = await team('Doomed', null, owner);
    const tokens = await tokensForTeam(api, rp, owner, 'openid team:read team:delete', doomed._id);
    expect((await call(tokens.access_token, 'DELETE', `/api/oauth/me/team/${doomed._id}`)).status).toBe(204);
    expect((await call(tokens.access_token, 'GET', `/api/oauth/me/team/${doomed._id}`)).status).toBe(404);
  });
});

describe('a site:team token', () => {
  let siteAdmin: FixtureUser;
  let secret: string;

  let agent: HttpUser;

  /** The gate at consent: signed in once with TOTP (a code is single use), then a backup code and the phrase at each consent. */
  async function siteToken(scope: string, backup: string): Promise<string> {
    const flow = await startFlow(api, rp, siteAdmin, scope, {}, agent);
    const consent = flow.step.url.includes('/login/second-factor')
      ? await agent.submit(await flow.step.res.text(), '/login/second-factor', { code: await generate({ secret }) })
      : flow.step;
    const done = await agent.submit(await consent.res.text(), '/consent', { decision: 'allow', confirmation: 'grant site access', code: backup });
    return (await redeemCode(api, rp, flow, done.external!)).access_token as string;
  }

  beforeAll(async () => {
    secret = generateSecret();
    siteAdmin = await newUser(api.deps, { prefix: 'site-teams', password: FLOW_PASSWORD, admin: true, totpSecret: secret });
    agent = new HttpUser(api.url);
  });

  it('reads every team on the instance, and changes or deletes only with the matching scope', async () => {
    const read = await siteToken('openid site:team:read', siteAdmin.backupCodes[0]!);
    const listed = await call(read, 'GET', '/api/oauth/site/teams?limit=500');
    expect(listed.status).toBe(200);
    expect(listed.body.teams.map((t: Json) => t.id)).toEqual(expect.arrayContaining([top._id, mid._id, other._id]));
    expect((await call(read, 'GET', `/api/oauth/site/teams/${other._id}/members`)).status).toBe(200);
    expect((await call(read, 'PATCH', `/api/oauth/site/teams/${other._id}`, { description: 'x' })).status).toBe(403);
    expect((await call(read, 'GET', `/api/oauth/me/team/${other._id}`)).status).toBe(403);

    const doomed = await team('Site doomed', null, owner);
    const write = await siteToken('openid site:team:write site:team:delete', siteAdmin.backupCodes[1]!);
    expect((await call(write, 'PATCH', `/api/oauth/site/teams/${doomed._id}`, { description: 'by the site admin' })).status).toBe(200);
    // A site admin adds a member at once, as the operator CLI does; users invite.
    const added = await call(write, 'POST', `/api/oauth/site/teams/${doomed._id}/members`, { user: admin.email, role: 'member' });
    expect([added.status, added.body.user_id]).toEqual([201, admin.id]);
    expect((await call(write, 'DELETE', `/api/oauth/site/teams/${doomed._id}`)).status).toBe(204);
    const records = await auditRecords(api.deps.store, { event: 'team.delete', 'data.team_id': doomed._id });
    expect(records.map((r) => r.actor)).toEqual([expect.objectContaining({ type: 'user', userId: siteAdmin.id, clientId: rp.id })]);
  });

  it('stops working when its user is no longer a site admin', async () => {
    const read = await siteToken('openid site:team:read', siteAdmin.backupCodes[2]!);
    await api.deps.store.users.updateOne({ _id: siteAdmin.id }, { $set: { role: 'user' } });
    try {
      const refused = await call(read, 'GET', '/api/oauth/site/teams');
      expect(refused.status).toBe(404);
      expect(refused.body.error).toBe('not_found');
    } finally {
      await api.deps.store.users.updateOne({ _id: siteAdmin.id }, { $set: { role: 'admin' } });
    }
  });
});
