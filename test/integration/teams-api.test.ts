// The team API (/api/oauth/me/teams) over real HTTP with OAuth tokens from the
// code flow: creating and listing teams, roles inherited down a three-level
// tree, the member-write cap on every change path, the last owner, cycles and
// depth, cascading deletes, groups, strangers, the audit log, and bad input on
// every endpoint. The single-team and site tiers' tokens come from consent;
// here only their refusals of a token without their scopes.
import type { RunningApi } from '../../api/server.js';
import { auditLog } from '../../lib/store/audit-log.js';
import type { UserDoc } from '../../lib/store/users.js';
import { STACK_FRAME, startTestApi, type Json } from '../support/harness.js';
import { newTestRp, runCodeFlow, type TestRp } from '../support/token-flow.js';

const ALL = ['teams:read', 'teams:write', 'teams:create', 'teams:delete'];
let api: RunningApi;
let rp: TestRp;
beforeAll(async () => {
  api = await startTestApi();
  rp = await newTestRp(api, { allowedScopes: ['openid', ...ALL] });
});
afterAll(() => api.stop());

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
async function call(who: Caller | null, method: string, path = '', body?: unknown, raw?: { type: string; body: string }) {
  const headers: Record<string, string> = who ? { authorization: `Bearer ${who.token}` } : {};
  if (raw) headers['content-type'] = raw.type;
  else if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${api.url}/api/oauth/me/teams${path}`, {
    method,
    headers,
    body: raw ? raw.body : body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { res, status: res.status, body: text ? JSON.parse(text) : null, text };
}

let slugs = 0;
const slug = (p = 't') => `${p}-${Date.now().toString(36)}-${slugs++}`;

async function team(owner: Caller, parentId: string | null = null): Promise<Json> {
  const r = await call(owner, 'POST', '', { name: 'Team', slug: slug(), parent_id: parentId });
  expect(r.status).toBe(201);
  return r.body;
}

async function addMember(by: Caller, teamId: string, who: Caller, role: string) {
  return call(by, 'POST', `/${teamId}/members`, { user: who.email, role });
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
    expect((await addMember(o, a.id, x, 'admin')).status).toBe(201);

    const listed = (await call(x, 'GET')).body.teams as Json[];
    expect(listed.find((t) => t.id === c.id)).toMatchObject({ role: 'admin', inherited: true });
    const patched = await call(x, 'PATCH', `/${c.id}`, { description: 'changed by an inherited admin' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: c.id, description: 'changed by an inherited admin', role: 'admin', inherited: true });
    expect((await addMember(x, c.id, m, 'member')).status).toBe(201);
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
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ user_id: y.user._id, role: 'member', groups: [], added_at: expect.any(String) });

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

  it('records team.create, team.member.add and team.delete in the audit log with the acting user and app', async () => {
    const [o, m] = [await caller(), await caller()];
    const t = await team(o);
    await addMember(o, t.id, m, 'member');
    await call(o, 'DELETE', `/${t.id}`);
    const records = await auditLog(api.deps.store)
      .find({ name: { $in: ['team.create', 'team.member.add', 'team.delete'] } })
      .toArray();
    const mine = records.filter((r) => r.data.team_id === t.id);
    expect(mine.map((r) => r.name).sort()).toEqual(['team.create', 'team.delete', 'team.member.add']);
    for (const r of mine) expect(r.actor).toEqual({ type: 'user', userId: o.user._id, clientId: rp.id });
    expect(mine.find((r) => r.name === 'team.member.add')!.data).toMatchObject({ user_id: m.user._id, role: 'member' });
  });

  it('needs the scope of each endpoint', async () => {
    const [reader, o] = [await caller(['teams:read']), await caller()];
    const t = await team(o);
    await addMember(o, t.id, reader, 'admin');
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
      ['POST', `${one}/members`, { user: 'nobody@example.com' }, undefined, 404],
      ['POST', `${one}/members`, { user: m.email }, undefined, 409],
      ['POST', `${one}/members`, undefined, { type: 'text/plain', body: 'user=x' }, 400],
      ['DELETE', `${one}/members`, undefined, undefined, 405],
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
