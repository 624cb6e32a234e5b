// The team API (/api/oauth/me/teams) over real HTTP with OAuth tokens from the
// code flow: creating and listing teams, roles inherited down a three-level
// tree, the member-write cap on every change path, the last owner, cycles and
// depth, cascading deletes, groups, strangers, the audit log, and bad input on
// every endpoint. The single-team and site tiers' tokens come from consent;
// here only their refusals of a token without their scopes.
import { auditRecords } from '../../support/audit.js';
import type { UserDoc } from '../../../lib/model/users.js';
import { useTestApi, STACK_FRAME, type Json } from '../../support/harness.js';
import { newTestRp, runCodeFlow, type TestRp } from '../../support/token-flow.js';
import { jwtClaims, requestJson } from '../../support/http.js';
import { joinTeam } from '../../support/teams.js';

const ALL = ['teams:read', 'teams:write', 'teams:create', 'teams:delete'];
let rp: TestRp;
const api = useTestApi();
beforeAll(async () => {
  rp = await newTestRp(api, { allowedScopes: ['openid', ...ALL] });
});

interface Caller {
  token: string;
  user: UserDoc;
  email: string;
}

/** A new user who allowed `scope` to the RP. */
async function caller(scope = ALL): Promise<Caller> {
  const { tokens, user, email } = await runCodeFlow(api, rp, ['openid', ...scope].join(' '));
  return { token: tokens.access_token as string, user, email };
}

/** A request to the team API; `body` as JSON unless `raw` gives the body and its content type. */
const call = (who: Caller | null, method: string, path = '', body?: unknown, raw?: { type: string; body: string }) =>
  requestJson(`${api.url}/api/oauth/me/teams${path}`, method, { token: who?.token, body: raw ? raw.body : body, contentType: raw?.type });

let slugs = 0;
const slug = (p = 't') => `${p}-${Date.now().toString(36)}-${slugs++}`;

async function team(owner: Caller, parentId: string | null = null): Promise<Json> {
  const r = await call(owner, 'POST', '', { name: 'Team', slug: slug(), parent_id: parentId });
  expect(r.status).toBe(201);
  return r.body;
}

/** `by` invites `who` by email; `who` accepts. The answer is the acceptance's (200 with the team), or the refused invitation. */
async function addMember(by: Caller, teamId: string, who: Caller, role: string) {
  const invited = await call(by, 'POST', `/${teamId}/members`, { user: who.email, role });
  if (invited.status !== 202) return invited;
  return call(who, 'POST', `/invitations/${invited.body.id}/accept`);
}

describe('team API', () => {
  it('creates a team whose creator is its owner, and lists and reads it', async () => {
    const o = await caller();
    const s = slug('created');
    const created = await call(o, 'POST', '', { name: 'Platform', slug: s, description: 'the platform team' });
    expect(created.status).toBe(201);
    expect(created.res.headers.get('cache-control')).toBe('no-store');
    expect(created.body).toMatchObject({
      name: 'Platform',
      slug: s,
      description: 'the platform team',
      parent_id: null,
      role: 'owner',
      inherited: false,
      groups: [],
    });
    expect(created.res.headers.get('location')).toBe(`${api.url}/api/oauth/me/teams/${created.body.id}`);

    const list = await call(o, 'GET');
    expect(list.status).toBe(200);
    expect(list.body.teams).toEqual([expect.objectContaining({ id: created.body.id, role: 'owner', inherited: false })]);
    expect((await call(o, 'GET', `/${created.body.id}`)).body).toMatchObject({ id: created.body.id, role: 'owner' });
    const members = await call(o, 'GET', `/${created.body.id}/members`);
    expect(members.body).toEqual({ members: [{ user_id: o.user._id, role: 'owner', groups: [], added_at: expect.any(String) }] });
    // A slug another team holds: 409 on create and on rename (FerretDB reports an update's clash differently from an insert's).
    expect((await call(o, 'POST', '', { name: 'Twin', slug: s })).status).toBe(409);
    const other = await call(o, 'POST', '', { name: 'Other', slug: slug('other') });
    const renamed = await call(o, 'PATCH', `/${other.body.id}`, { slug: s });
    expect([renamed.status, renamed.body.error]).toEqual([409, 'conflict']);
  });

  it('an admin of a grandparent administers the grandchild, but only an owner may delete it', async () => {
    const [o, x, m] = [await caller(), await caller(), await caller()];
    const a = await team(o);
    const b = await team(o, a.id);
    const c = await team(o, b.id);
    expect((await addMember(o, a.id, x, 'admin')).status).toBe(200);

    const listed = (await call(x, 'GET')).body.teams as Json[];
    expect(listed.find((t) => t.id === c.id)).toMatchObject({ role: 'admin', inherited: true });
    const patched = await call(x, 'PATCH', `/${c.id}`, { description: 'changed by an inherited admin' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: c.id, description: 'changed by an inherited admin', role: 'admin', inherited: true });
    expect((await addMember(x, c.id, m, 'member')).status).toBe(200);
    expect((await call(m, 'GET', `/${c.id}`)).body).toMatchObject({ role: 'member', inherited: false });

    const refused = await call(x, 'DELETE', `/${c.id}`);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('access_denied');
    expect((await call(o, 'DELETE', `/${c.id}`)).status).toBe(204);
    expect((await call(o, 'GET', `/${c.id}`)).status).toBe(404);
  });

  it('keeps an admin within the member-write cap on every change path', async () => {
    const [o, x, y, z, w] = [await caller(), await caller(), await caller(), await caller(), await caller()];
    const t = await team(o);
    await addMember(o, t.id, x, 'admin');
    expect((await addMember(x, t.id, y, 'owner')).status).toBe(403);
    expect((await addMember(x, t.id, y, 'co-owner')).status).toBe(403);
    const added = await addMember(x, t.id, y, 'member');
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ id: t.id, role: 'member', inherited: false });

    const promote = await call(x, 'PATCH', `/${t.id}/members/${y.user._id}`, { role: 'owner' });
    expect(promote.status).toBe(403);
    expect(promote.body.error).toBe('access_denied');
    await addMember(o, t.id, z, 'admin');
    const lowered = await call(x, 'PATCH', `/${t.id}/members/${z.user._id}`, { role: 'member' });
    expect(lowered.status).toBe(200);
    expect(lowered.body).toMatchObject({ user_id: z.user._id, role: 'member' });
    await addMember(o, t.id, w, 'co-owner');
    expect((await call(x, 'DELETE', `/${t.id}/members/${w.user._id}`)).status).toBe(403);

    const roles = Object.fromEntries(((await call(o, 'GET', `/${t.id}/members`)).body.members as Json[]).map((mm) => [mm.user_id, mm.role]));
    expect(roles).toEqual({ [o.user._id]: 'owner', [x.user._id]: 'admin', [y.user._id]: 'member', [z.user._id]: 'member', [w.user._id]: 'co-owner' });
  });

  it('refuses to let the last owner leave or step down; a member may leave', async () => {
    const [o, m] = [await caller(), await caller()];
    const t = await team(o);
    await addMember(o, t.id, m, 'member');
    const leave = await call(o, 'DELETE', `/${t.id}/members/${o.user._id}`);
    expect(leave.status).toBe(409);
    expect(leave.body.error).toBe('conflict');
    expect((await call(o, 'PATCH', `/${t.id}/members/${o.user._id}`, { role: 'admin' })).status).toBe(409);
    expect((await call(m, 'DELETE', `/${t.id}/members/${m.user._id}`)).status).toBe(204);
    expect((await call(m, 'GET', `/${t.id}`)).status).toBe(404);
  });

  it('refuses cycles and trees deeper than eight levels', async () => {
    const o = await caller();
    const a = await team(o);
    const b = await team(o, a.id);
    const c = await team(o, b.id);
    const underChild = await call(o, 'PATCH', `/${a.id}`, { parent_id: c.id });
    expect(underChild.status).toBe(400);
    expect(underChild.body.error_description).toMatch(/parent_id/);
    expect((await call(o, 'PATCH', `/${a.id}`, { parent_id: a.id })).status).toBe(400);

    let parent = c.id as string;
    for (let level = 4; level <= 8; level++) parent = (await team(o, parent)).id;
    const ninth = await call(o, 'POST', '', { name: 'Too deep', slug: slug(), parent_id: parent });
    expect(ninth.status).toBe(400);
    expect(ninth.body.error_description).toMatch(/8 levels/);
    const other = await team(o);
    const tooDeepMove = await call(o, 'PATCH', `/${a.id}`, { parent_id: other.id });
    expect(tooDeepMove.status).toBe(400);
    expect((await call(o, 'GET', `/${a.id}`)).body.parent_id).toBeNull();
  });

  it('never lets a move raise anyone above what the mover could give: a co-owner cannot take a team from its owner', async () => {
    const [o, c, f] = [await caller(), await caller(), await caller()];
    const t = await team(o);
    const child = await team(o, t.id);
    await addMember(o, t.id, c, 'co-owner');

    // The attack: C moves T under a team C owns, so C inherits owner on T, then removes O.
    const q = await team(c);
    const underOwn = await call(c, 'PATCH', `/${t.id}`, { parent_id: q.id });
    expect([underOwn.status, underOwn.body.error]).toEqual([403, 'access_denied']);
    // With an accomplice: F owns Q2 and makes C only an admin there; the move would make F owner of T.
    const q2 = await team(f);
    await addMember(f, q2.id, c, 'admin');
    expect((await call(c, 'PATCH', `/${t.id}`, { parent_id: q2.id })).status).toBe(403);
    expect((await call(c, 'PATCH', `/${child.id}`, { parent_id: q.id })).status).toBe(403);
    expect((await call(o, 'GET', `/${t.id}`)).body).toMatchObject({ parent_id: null, role: 'owner', inherited: false });
    expect((await call(o, 'GET', `/${child.id}`)).body).toMatchObject({ parent_id: t.id, role: 'owner' });
    expect((await call(c, 'DELETE', `/${t.id}/members/${o.user._id}`)).status).toBe(403);

    // A direct owner of a child team cannot take it away from the owners of its parent either.
    const lead = await caller();
    await addMember(o, child.id, lead, 'owner');
    const leadTeam = await team(lead);
    expect((await call(lead, 'PATCH', `/${child.id}`, { parent_id: null })).status).toBe(403);
    expect((await call(lead, 'PATCH', `/${child.id}`, { parent_id: leadTeam.id })).status).toBe(403);
    expect((await call(o, 'GET', `/${child.id}`)).body).toMatchObject({ parent_id: t.id });

    // The owner of the team and of its current parent moves it under any team where they may add child teams.
    const mine = await team(o);
    const moved = await call(o, 'PATCH', `/${child.id}`, { parent_id: mine.id });
    expect([moved.status, moved.body.parent_id]).toEqual([200, mine.id]);
    expect((await call(o, 'PATCH', `/${child.id}`, { parent_id: null })).body.parent_id).toBeNull();
    expect((await call(o, 'PATCH', `/${t.id}`, { parent_id: mine.id })).body.parent_id).toBe(mine.id);
  });

  it('refuses to delete a team with children unless asked to cascade, then deletes the subtree', async () => {
    const o = await caller();
    const a = await team(o);
    const b = await team(o, a.id);
    const c = await team(o, b.id);
    const refused = await call(o, 'DELETE', `/${a.id}`);
    expect(refused.status).toBe(409);
    expect((await call(o, 'GET', `/${b.id}`)).status).toBe(200);
    expect((await call(o, 'DELETE', `/${a.id}?cascade=true`)).status).toBe(204);
    for (const id of [a.id, b.id, c.id]) expect((await call(o, 'GET', `/${id}`)).status).toBe(404);
    expect((await call(o, 'GET')).body.teams).toEqual([]);
  });

  it('hides a team from a stranger and refuses a plain member’s changes', async () => {
    const [o, s, m] = [await caller(), await caller(), await caller()];
    const t = await team(o);
    await addMember(o, t.id, m, 'member');
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { name: 'taken over' }],
      ['DELETE', undefined],
    ] as const) {
      const r = await call(s, method, `/${t.id}`, body);
      expect([method, r.status, r.body.error]).toEqual([method, 404, 'not_found']);
    }
    expect((await call(s, 'GET', `/${t.id}/members`)).status).toBe(404);
    const byMember = await call(m, 'PATCH', `/${t.id}`, { name: 'renamed by a member' });
    expect(byMember.status).toBe(403);
    expect(byMember.body.error).toBe('access_denied');
    expect((await call(o, 'GET', `/${t.id}`)).body.name).toBe('Team');
  });

  it('adds a group, assigns it to a member, and takes it away with the group', async () => {
    const [o, m] = [await caller(), await caller()];
    const t = await team(o);
    const withGroup = await call(o, 'POST', `/${t.id}/groups`, { slug: 'ops', name: 'Operations' });
    expect(withGroup.status).toBe(201);
    expect(withGroup.body).toMatchObject({ id: t.id, groups: [{ slug: 'ops', name: 'Operations' }], role: 'owner' });
    expect((await call(o, 'POST', `/${t.id}/groups`, { slug: 'ops', name: 'Again' })).status).toBe(409);
    await addMember(o, t.id, m, 'member');
    expect((await call(o, 'PATCH', `/${t.id}/members/${m.user._id}`, { groups: ['nope'] })).status).toBe(400);
    expect((await call(o, 'PATCH', `/${t.id}/members/${m.user._id}`, { groups: ['ops'] })).body.groups).toEqual(['ops']);
    expect((await call(m, 'GET', `/${t.id}`)).body.my_groups).toEqual(['ops']);

    expect((await call(o, 'DELETE', `/${t.id}/groups/ops`)).status).toBe(204);
    expect((await call(o, 'DELETE', `/${t.id}/groups/ops`)).status).toBe(404);
    const members = (await call(o, 'GET', `/${t.id}/members`)).body.members as Json[];
    expect(members.find((mm) => mm.user_id === m.user._id).groups).toEqual([]);
    expect((await call(m, 'GET', `/${t.id}`)).body).toMatchObject({ groups: [], my_groups: [] });
  });

  it('records team.create, the invitation, team.member.add and team.delete in the audit log with the acting user and app', async () => {
    const [o, m] = [await caller(), await caller()];
    const t = await team(o);
    await addMember(o, t.id, m, 'member');
    await call(o, 'DELETE', `/${t.id}`);
    const records = await auditRecords(api.deps.store, { event: { $in: ['team.create', 'team.member.invite', 'team.member.add', 'team.delete'] } });
    const mine = records.filter((r) => r.data.team_id === t.id);
    expect(mine.map((r) => r.event).sort()).toEqual(['team.create', 'team.delete', 'team.member.add', 'team.member.invite']);
    const byName = (name: string) => mine.find((r) => r.event === name)!;
    for (const name of ['team.create', 'team.member.invite', 'team.delete'])
      expect(byName(name).actor).toEqual({ type: 'user', userId: o.user._id, clientId: rp.id });
    expect(byName('team.member.invite').data).toMatchObject({ user_id: m.user._id, role: 'member' });
    // The member joins by their own act: they are its actor, and the inviter is named.
    expect(byName('team.member.add').actor).toEqual({ type: 'user', userId: m.user._id, clientId: rp.id });
    expect(byName('team.member.add').data).toMatchObject({ user_id: m.user._id, role: 'member', invited_by: o.user._id });
  });

  it('needs the scope of each endpoint', async () => {
    const [reader, o] = [await caller(['teams:read']), await caller()];
    const t = await team(o);
    await joinTeam(api.deps, { id: o.user._id }, t.id, { id: reader.user._id }, 'admin');
    const create = await call(reader, 'POST', '', { name: 'x', slug: slug() });
    expect(create.status).toBe(403);
    expect(create.body.error).toBe('insufficient_scope');
    expect(create.res.headers.get('www-authenticate')).toContain('scope="teams:create"');
    expect((await call(reader, 'PATCH', `/${t.id}`, { name: 'y' })).status).toBe(403);
    expect((await call(reader, 'DELETE', `/${t.id}`)).status).toBe(403);
    expect((await call(reader, 'GET', `/${t.id}`)).status).toBe(200);
    expect((await call(null, 'GET')).status).toBe(401);
  });

  it('refuses tokens without the single-team or site scopes at those tiers', async () => {
    const o = await caller();
    const t = await team(o);
    const single = await fetch(`${api.url}/api/oauth/me/team/${t.id}`, { headers: { authorization: `Bearer ${o.token}` } });
    expect(single.status).toBe(403);
    expect(await single.json()).toMatchObject({ error: 'insufficient_scope' });
    expect(single.headers.get('www-authenticate')).toContain(`scope="team:${t.id}:read"`);
    const members = await fetch(`${api.url}/api/oauth/me/team/${t.id}/members`, { headers: { authorization: `Bearer ${o.token}` } });
    expect(members.headers.get('www-authenticate')).toContain(`scope="team:${t.id}:member:read"`);
    // The site tier is 404 to anyone who is not a site admin, before any scope check.
    const site = await fetch(`${api.url}/api/oauth/site/teams`, { headers: { authorization: `Bearer ${o.token}` } });
    expect(site.status).toBe(404);
    expect(await site.json()).toMatchObject({ error: 'not_found' });
    const badId = await fetch(`${api.url}/api/oauth/me/team/bad%20id`, { headers: { authorization: `Bearer ${o.token}` } });
    expect(badId.status).toBe(400);
  });

  it('answers bad input on every endpoint with a 4xx JSON error, never a 500 or a stack trace', async () => {
    const o = await caller();
    const t = await team(o);
    const m = await caller();
    await addMember(o, t.id, m, 'member');
    const one = `/${t.id}`;
    const member = `${one}/members/${m.user._id}`;
    const huge = 'x'.repeat(20_000);
    const cases: [string, string, unknown, { type: string; body: string } | undefined, number][] = [
      ['POST', '', { name: 5, slug: slug() }, undefined, 400],
      ['POST', '', { name: 'n', slug: slug(), extra: true }, undefined, 400],
      ['POST', '', { name: 'n', slug: 'Not A Slug' }, undefined, 400],
      ['POST', '', { name: 'n', slug: '-dash' }, undefined, 400],
      ['POST', '', { name: huge, slug: slug() }, undefined, 400],
      ['POST', '', { name: 'n', slug: slug(), description: huge }, undefined, 400],
      ['POST', '', { name: 'n', slug: slug(), parent_id: '../etc' }, undefined, 400],
      ['POST', '', { name: 'n', slug: slug(), parent_id: 7 }, undefined, 400],
      ['POST', '', { name: 'n', slug: slug(), member_groups_enabled: 'yes' }, undefined, 400],
      ['POST', '', [], undefined, 400],
      ['POST', '', null, undefined, 400],
      ['POST', '', undefined, { type: 'text/plain', body: 'name=n' }, 400],
      ['POST', '', undefined, { type: 'application/x-www-form-urlencoded', body: 'name=n&slug=ok' }, 400],
      ['POST', '', undefined, { type: 'application/json', body: '{"name":' }, 400],
      ['POST', '', undefined, { type: 'application/json', body: '"a string"' }, 400],
      ['POST', '', undefined, { type: 'application/json', body: JSON.stringify({ name: 'x'.repeat(100_000), slug: 'ok' }) }, 413],
      ['POST', '', undefined, undefined, 400],
      ['PUT', '', { name: 'n' }, undefined, 405],
      ['GET', '/bad%20id', undefined, undefined, 400],
      ['GET', `/${'a'.repeat(65)}`, undefined, undefined, 400],
      ['GET', '/%ZZ', undefined, undefined, 400],
      ['GET', '/no-such-team', undefined, undefined, 404],
      ['PATCH', one, {}, undefined, 400],
      ['PATCH', one, { parent_id: 5 }, undefined, 400],
      ['PATCH', one, { slug: 'UPPER' }, undefined, 400],
      ['PATCH', one, { name: '   ' }, undefined, 400],
      ['PATCH', one, { owner: 'me' }, undefined, 400],
      ['PATCH', one, undefined, { type: 'text/plain', body: '{}' }, 400],
      ['PATCH', '/bad$id', { name: 'n' }, undefined, 400],
      ['DELETE', `${one}?cascade=yes`, undefined, undefined, 400],
      ['DELETE', `${one}?cascade=1`, undefined, undefined, 400],
      ['DELETE', `${one}?cascade=true&cascade=false`, undefined, undefined, 400],
      ['DELETE', '/bad$id', undefined, undefined, 400],
      ['PUT', one, {}, undefined, 405],
      ['GET', '/bad$id/members', undefined, undefined, 400],
      ['POST', `${one}/members`, {}, undefined, 400],
      ['POST', `${one}/members`, { user: '' }, undefined, 400],
      ['POST', `${one}/members`, { user: m.email, role: 'king' }, undefined, 400],
      ['POST', `${one}/members`, { user: m.email, groups: ['Bad Group'] }, undefined, 400],
      ['POST', `${one}/members`, { user: m.email, groups: 'ops' }, undefined, 400],
      ['POST', `${one}/members`, { user: huge }, undefined, 400],
      ['POST', `${one}/members`, undefined, { type: 'text/plain', body: 'user=x' }, 400],
      ['DELETE', `${one}/members`, undefined, undefined, 405],
      ['GET', `${one}/invitations/x`, undefined, undefined, 405],
      ['POST', `${one}/invitations`, {}, undefined, 405],
      ['DELETE', `${one}/invitations/bad$id`, undefined, undefined, 400],
      ['DELETE', `${one}/invitations/no-such-invitation`, undefined, undefined, 404],
      ['POST', '/invitations/bad$id/accept', undefined, undefined, 400],
      ['POST', '/invitations/no-such-invitation/accept', undefined, undefined, 404],
      ['DELETE', '/invitations/no-such-invitation', undefined, undefined, 404],
      ['PUT', '/invitations', undefined, undefined, 405],
      ['GET', '/invitations/x/accept', undefined, undefined, 405],
      ['PATCH', member, {}, undefined, 400],
      ['PATCH', member, { role: 1 }, undefined, 400],
      ['PATCH', member, { role: 'admin', extra: 1 }, undefined, 400],
      ['PATCH', `${one}/members/bad$user`, { role: 'admin' }, undefined, 400],
      ['PATCH', `${one}/members/no-such-user`, { role: 'admin' }, undefined, 404],
      ['DELETE', `${one}/members/bad$user`, undefined, undefined, 400],
      ['DELETE', `${one}/members/${'u'.repeat(65)}`, undefined, undefined, 400],
      ['GET', member, undefined, undefined, 405],
      ['POST', `${one}/groups`, { slug: 'BAD', name: 'Bad' }, undefined, 400],
      ['POST', `${one}/groups`, { slug: 'ok' }, undefined, 400],
      ['POST', `${one}/groups`, { slug: 'ok', name: huge }, undefined, 400],
      ['POST', `${one}/groups`, undefined, { type: 'text/plain', body: 'slug=ok' }, 400],
      ['GET', `${one}/groups`, undefined, undefined, 405],
      ['DELETE', `${one}/groups/BAD!`, undefined, undefined, 400],
      ['DELETE', `${one}/groups/missing`, undefined, undefined, 404],
    ];
    for (const [method, path, body, raw, status] of cases) {
      const r = await call(o, method, path, body, raw);
      const label = `${method} ${path.slice(0, 80)} ${JSON.stringify(body ?? raw)?.slice(0, 60)}`;
      expect([label, r.status]).toEqual([label, status]);
      expect(r.res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(r.body).toEqual({ error: expect.any(String), error_description: expect.any(String) });
      expect(r.text).not.toMatch(STACK_FRAME);
    }
    // Nothing above changed the team or its members.
    expect((await call(o, 'GET', one)).body).toMatchObject({ name: 'Team', slug: t.slug, description: '', groups: [] });
    expect(((await call(o, 'GET', `${one}/members`)).body.members as Json[]).map((mm) => mm.role).sort()).toEqual(['member', 'owner']);
  });
});

describe('team invitations', () => {
  const again = (who: Caller) => runCodeFlow(api, rp, ['openid', ...ALL].join(' '), { user: { email: who.email, doc: who.user } });
  const invite = (by: Caller, teamId: string, user: string, role = 'member') => call(by, 'POST', `/${teamId}/members`, { user, role });
  const pending = async (by: Caller, teamId: string) => (await call(by, 'GET', `/${teamId}/invitations`)).body.invitations as Json[];

  it('answers the same whether or not the account exists, and nobody joins without accepting', async () => {
    const [o, byEmail, byName, byId, unverified] = [await caller(), await caller(), await caller(), await caller(), await caller()];
    // An account with an address nobody verified (open sign-up lets anyone claim one) is not what an email names.
    await api.deps.store.users.updateOne({ _id: unverified.user._id }, { $set: { emailVerified: false } });
    const t = await team(o);
    const refs = [byEmail.email, byName.user.username, byId.user._id, unverified.email, `nobody-${slug()}@example.com`, 'no-such-username', o.email];
    const answers = [];
    for (const ref of refs) answers.push(await invite(o, t.id, ` ${ref} `));
    for (const [i, a] of answers.entries()) {
      expect([refs[i], a.status]).toEqual([refs[i], 202]);
      expect(a.res.headers.get('cache-control')).toBe('no-store');
      expect(a.body.user).toBe(refs[i]);
    }
    // Apart from the reference, its id and its times, every answer is the same.
    const shape = (b: Json) => ({ ...b, id: 'x', user: 'x', created_at: 'x', expires_at: 'x' });
    expect(new Set(answers.map((a) => JSON.stringify(shape(a.body)))).size).toBe(1);
    expect(shape(answers[0]!.body)).toEqual({ id: 'x', user: 'x', role: 'member', groups: [], invited_by: o.user._id, created_at: 'x', expires_at: 'x' });
    const days = (Date.parse(answers[0]!.body.expires_at) - Date.parse(answers[0]!.body.created_at)) / 86_400_000;
    expect(days).toBe(7);
    // Inviting again while one is pending: the same 409 for an account and for nobody.
    for (const ref of [byEmail.email, refs[4]!]) expect((await invite(o, t.id, ref.toUpperCase())).status).toBe(409);
    expect((await pending(o, t.id)).map((i) => i.user)).toEqual(refs);

    // Not a member yet: the team is not there for them, and not in their tokens.
    for (const who of [byEmail, byName, byId]) {
      expect((await call(who, 'GET', `/${t.id}`)).status).toBe(404);
      const received = (await call(who, 'GET', '/invitations')).body.invitations as Json[];
      expect(received).toEqual([
        {
          id: expect.any(String),
          team: { id: t.id, name: 'Team', slug: t.slug },
          role: 'member',
          groups: [],
          invited_by: o.user._id,
          expires_at: expect.any(String),
        },
      ]);
    }
    expect(jwtClaims((await again(byEmail)).tokens.id_token)[`in_team_${t.id}`]).toBeUndefined();
    expect((await call(unverified, 'GET', '/invitations')).body.invitations).toEqual([]);
    expect((await call(unverified, 'POST', `/invitations/${answers[3]!.body.id}/accept`)).status).toBe(404);
    // Someone else's invitation cannot be accepted or declined.
    expect((await call(byName, 'POST', `/invitations/${answers[0]!.body.id}/accept`)).status).toBe(404);
    expect((await call(byName, 'DELETE', `/invitations/${answers[0]!.body.id}`)).status).toBe(404);

    const accepted = await call(byEmail, 'POST', `/invitations/${answers[0]!.body.id}/accept`);
    expect([accepted.status, accepted.body.id, accepted.body.role]).toEqual([200, t.id, 'member']);
    expect(jwtClaims((await again(byEmail)).tokens.id_token)).toMatchObject({ [`in_team_${t.id}`]: true, [`role_in_team_${t.id}`]: 'member' });
    expect((await call(byEmail, 'POST', `/invitations/${answers[0]!.body.id}/accept`)).status).toBe(404);
    expect((await call(byName, 'DELETE', `/invitations/${answers[1]!.body.id}`)).status).toBe(204);
    expect((await call(byName, 'GET', `/${t.id}`)).status).toBe(404);
    expect((await call(byName, 'POST', `/invitations/${answers[1]!.body.id}/accept`)).status).toBe(404);
    expect((await call(byId, 'POST', `/invitations/${answers[2]!.body.id}/accept`)).status).toBe(200);
    const members = ((await call(o, 'GET', `/${t.id}/members`)).body.members as Json[]).map((m) => m.user_id).sort();
    expect(members).toEqual([o.user._id, byEmail.user._id, byId.user._id].sort());
    expect((await pending(o, t.id)).map((i) => i.user)).toEqual(refs.slice(3));
  });

  it('puts nothing in the tokens of a user a stranger invites, even as owner', async () => {
    const [stranger, victim] = [await caller(), await caller()];
    const t = await team(stranger);
    const invited = await invite(stranger, t.id, victim.email, 'owner');
    expect(invited.status).toBe(202);
    const { tokens } = await again(victim);
    expect(Object.keys(jwtClaims(tokens.id_token)).filter((k) => k.includes(t.id))).toEqual([]);
    const userinfo = (await (await fetch(`${api.url}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).json()) as Json;
    expect(Object.keys(userinfo).filter((k) => k.includes(t.id))).toEqual([]);
    expect((await call(victim, 'GET')).body.teams).toEqual([]);
    // Declined, it is gone for the stranger too.
    expect((await call(victim, 'DELETE', `/invitations/${invited.body.id}`)).status).toBe(204);
    expect(await pending(stranger, t.id)).toEqual([]);
  });

  it('is void once its sender can no longer give the role, or the team is gone', async () => {
    const [o, a, v, w] = [await caller(), await caller(), await caller(), await caller()];
    const t = await team(o);
    await addMember(o, t.id, a, 'admin');
    const invited = await invite(a, t.id, v.email, 'admin');
    expect(invited.status).toBe(202);
    expect((await call(o, 'PATCH', `/${t.id}/members/${a.user._id}`, { role: 'member' })).status).toBe(200);
    const refused = await call(v, 'POST', `/invitations/${invited.body.id}/accept`);
    expect([refused.status, refused.body.error]).toEqual([409, 'conflict']);
    expect((await call(v, 'GET', `/${t.id}`)).status).toBe(404);
    expect((await call(v, 'GET', '/invitations')).body.invitations).toEqual([]);

    const gone = await team(o);
    const toGone = await invite(o, gone.id, w.email);
    expect((await call(o, 'DELETE', `/${gone.id}`)).status).toBe(204);
    expect((await call(w, 'GET', '/invitations')).body.invitations).toEqual([]);
    expect((await call(w, 'POST', `/invitations/${toGone.body.id}/accept`)).status).toBe(404);
  });

  it('shows pending invitations to managers only; an admin revokes only those within reach', async () => {
    const [o, a, m, s, x, y] = [await caller(), await caller(), await caller(), await caller(), await caller(), await caller()];
    const t = await team(o);
    await addMember(o, t.id, a, 'admin');
    await addMember(o, t.id, m, 'member');
    const high = await invite(o, t.id, x.email, 'co-owner');
    const low = await invite(o, t.id, y.email, 'member');
    expect((await pending(a, t.id)).map((i) => [i.user, i.role])).toEqual([
      [x.email, 'co-owner'],
      [y.email, 'member'],
    ]);
    const asMember = await call(m, 'GET', `/${t.id}/invitations`);
    expect([asMember.status, asMember.body.error]).toEqual([403, 'access_denied']);
    expect((await call(s, 'GET', `/${t.id}/invitations`)).status).toBe(404);
    expect((await call(m, 'DELETE', `/${t.id}/invitations/${low.body.id}`)).status).toBe(403);
    expect((await call(a, 'DELETE', `/${t.id}/invitations/${high.body.id}`)).status).toBe(403);
    expect((await call(a, 'DELETE', `/${t.id}/invitations/${low.body.id}`)).status).toBe(204);
    expect((await call(o, 'DELETE', `/${t.id}/invitations/${high.body.id}`)).status).toBe(204);
    expect(await pending(o, t.id)).toEqual([]);
    expect((await call(x, 'POST', `/invitations/${high.body.id}/accept`)).status).toBe(404);
    // An invitation of another team is not found through this one.
    const other = await team(o);
    const elsewhere = await invite(o, other.id, y.email);
    expect((await call(o, 'DELETE', `/${t.id}/invitations/${elsewhere.body.id}`)).status).toBe(404);
  });
});
