// Every administration path (under /api/oauth/me/admin and /api/oauth/site),
// walked from the app's own router so that a new route cannot escape, plus
// unknown sub-paths, with every method: without a token or with an invalid
// one, the same 401 challenge; with the token of a user who is not a site
// admin (one holding every admin and site scope, and a demoted admin's older
// token), the same 404 as an unknown path. A current admin still gets each
// route's own answers: 403 insufficient_scope without its scope, 405 with
// Allow for a method the route does not take.
import { ADMIN_SCOPES } from '../../../lib/model/admin-access.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { mintAccessToken } from '../../support/minted-token.js';
import { FLOW_PASSWORD } from '../../support/token-flow.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { testDatabase } from '../../support/database.js';

const AREA = /^\/api\/oauth\/(?:me\/admin|site)(?:\/|$)/i;
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
/** Every scope that reaches an administration route. */
const EVERY_SCOPE = [
  ...new Set([
    ...Object.values(ADMIN_SCOPES).flat(),
    ...['admin:webhooks:read', 'admin:webhooks:write', 'admin:webhooks:delete'],
    ...['site:team:read', 'site:team:write', 'site:team:delete'],
  ]),
];

const api = useTestApi(testDatabase('admin_area').env);

interface Layer {
  route?: { path: unknown };
  handle?: { stack?: Layer[] };
}

/** The route paths of the app's routers (every nested router) inside the administration area. */
function areaRoutes(): string[] {
  const paths = new Set<string>();
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      const path = layer.route?.path;
      if (layer.route && typeof path !== 'string') throw new Error(`a route path the walk cannot read: ${String(path)}`);
      if (typeof path === 'string' && AREA.test(path)) paths.add(path);
      if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((api.app as unknown as { router: { stack: Layer[] } }).router.stack);
  return [...paths];
}

/** A concrete path for a route path: each parameter some id. */
function concrete(route: string): string {
  if (/[*{}()]/.test(route)) throw new Error(`a route path this test does not fill in: ${route}`);
  return route.replace(/:\w+/g, 'some-id');
}

/** Every path to try: the routes, and paths under the area that no route has. */
function areaPaths(): string[] {
  const routes = areaRoutes().map(concrete);
  return [
    ...routes,
    '/api/oauth/me/admin',
    '/api/oauth/me/admin/',
    '/api/oauth/me/admin/no-such-thing',
    '/api/oauth/me/admin/users/some-id/no-such-thing',
    '/api/oauth/site',
    '/api/oauth/site/no-such/thing',
    '/api/oauth/site/teams/',
    '/API/OAUTH/ME/ADMIN/OAUTH_SOURCES',
    '/Api/OAuth/Site/Teams',
  ];
}

/** What a client sees of an answer: status, headers (but the date), body (none for HEAD); `path` in the body as `<path>`. */
async function seen(method: string, path: string, token?: string) {
  const res = await fetch(`${api.url}${path}`, { method, headers: token ? { authorization: `Bearer ${token}` } : {} });
  const headers = Object.fromEntries(
    [...res.headers].filter(([k]) => !['date', 'etag', 'content-length', 'keep-alive', 'connection', 'x-request-id'].includes(k)),
  );
  const text = await res.text();
  return { status: res.status, headers, body: text.split(path).join('<path>') };
}

/** Runs `fn` on every method and path, a few at a time. */
async function everyRequest<T>(fn: (method: string, path: string) => Promise<T>): Promise<{ method: string; path: string; answer: T }[]> {
  const cases = areaPaths().flatMap((path) => METHODS.map((method) => ({ method, path })));
  const out: { method: string; path: string; answer: T }[] = [];
  for (let i = 0; i < cases.length; i += 8) {
    out.push(...(await Promise.all(cases.slice(i, i + 8).map(async (c) => ({ ...c, answer: await fn(c.method, c.path) })))));
  }
  return out;
}

/** Each answer that differs from the expected one, labelled. */
const differing = <T>(answers: { method: string; path: string; answer: T }[], expected: (method: string) => T) =>
  answers.filter((a) => JSON.stringify(a.answer) !== JSON.stringify(expected(a.method))).map((a) => ({ request: `${a.method} ${a.path}`, got: a.answer }));

describe('the administration area', () => {
  it('walks the routes of every administration router', () => {
    const routes = areaRoutes();
    for (const base of ['users', 'apps', 'config', 'invites', 'oauth_sources', 'webhooks']) expect(routes).toContain(`/api/oauth/me/admin/${base}`);
    expect(routes).toContain('/api/oauth/site/teams');
    expect(routes.length).toBeGreaterThan(15);
  });

  it('answers every path and method without a token, or with an invalid one, with the same 401 challenge', async () => {
    const reference = { none: new Map<string, Json>(), invalid: new Map<string, Json>() };
    for (const method of METHODS) {
      reference.none.set(method, await seen(method, '/api/oauth/me/admin/users'));
      reference.invalid.set(method, await seen(method, '/api/oauth/me/admin/users', 'not-a-token'));
    }
    expect(reference.none.get('GET')).toMatchObject({ status: 401, headers: { 'www-authenticate': expect.stringMatching(/^Bearer /) } });
    expect(JSON.parse(reference.invalid.get('GET').body)).toMatchObject({ error: 'invalid_token' });
    expect(differing(await everyRequest((m, p) => seen(m, p)), (m) => reference.none.get(m))).toEqual([]);
    expect(differing(await everyRequest((m, p) => seen(m, p, 'not-a-token')), (m) => reference.invalid.get(m))).toEqual([]);
    for (const method of METHODS) expect([reference.none.get(method).status, reference.invalid.get(method).status]).toEqual([401, 401]);
  });

  it('answers a non-admin, even with every admin and site scope, and a demoted admin, as an unknown path', async () => {
    const { user: plain } = await newUser(api.deps, { prefix: 'area-plain', password: FLOW_PASSWORD });
    const nonAdmin = await mintAccessToken(api, plain._id, EVERY_SCOPE);
    const { user: former } = await newUser(api.deps, { prefix: 'area-former', password: FLOW_PASSWORD, admin: true });
    const demoted = await mintAccessToken(api, former._id, EVERY_SCOPE);
    expect((await seen('GET', '/api/oauth/me/admin/users', demoted)).status).toBe(200);
    await api.deps.store.users.updateOne({ _id: former._id }, { $set: { role: 'user' } });

    // The answer of a path that no route has, for each method.
    const unknown = new Map<string, Json>();
    for (const method of METHODS) unknown.set(method, await seen(method, '/no/such/route', nonAdmin));
    expect(unknown.get('GET')).toMatchObject({ status: 404, body: JSON.stringify({ error: 'not_found', error_description: 'no resource at GET <path>' }) });
    for (const token of [nonAdmin, demoted]) {
      expect(differing(await everyRequest((m, p) => seen(m, p, token)), (m) => unknown.get(m))).toEqual([]);
    }
  });

  it("gives a current admin each route's own answers: 403 insufficient_scope without its scope, 405 with Allow", async () => {
    const { user } = await newUser(api.deps, { prefix: 'area-admin', password: FLOW_PASSWORD, admin: true });
    // A token for Keyflow's API (openid) with no administration scope.
    const noScope = await mintAccessToken(api, user._id, ['openid']);
    const answers = await everyRequest(async (method, path) => {
      const res = await fetch(`${api.url}${path}`, { method, headers: { authorization: `Bearer ${noScope}` } });
      const body = method === 'HEAD' ? null : ((await res.json()) as Json);
      return { status: res.status, error: body?.error, allow: res.headers.get('allow') };
    });
    const routes = new Set(areaRoutes().map((r) => concrete(r).toLowerCase()));
    const isRoute = (path: string) => routes.has(path.toLowerCase().replace(/\/$/, ''));
    // On a route: its scope check (403) or its 405; elsewhere the unknown path's 404.
    const wrong = answers.filter(({ path, method, answer }) => {
      if (!isRoute(path)) return answer.status !== 404;
      if (answer.status === 405) return !answer.allow;
      return answer.status !== 403 || (method !== 'HEAD' && answer.error !== 'insufficient_scope');
    });
    expect(wrong).toEqual([]);

    const put = await seen('PUT', '/api/oauth/me/admin/oauth_sources', noScope);
    expect(put).toMatchObject({ status: 405, headers: { allow: 'GET, POST' } });
    const teams = await fetch(`${api.url}/api/oauth/site/teams`, { headers: { authorization: `Bearer ${noScope}` } });
    expect(teams.status).toBe(403);
    expect(teams.headers.get('www-authenticate')).toContain('scope="site:team:read"');
    const read = await mintAccessToken(api, user._id, ['site:team:read', 'admin:config:read']);
    expect((await fetch(`${api.url}/api/oauth/site/teams`, { headers: { authorization: `Bearer ${read}` } })).status).toBe(200);
    expect((await fetch(`${api.url}/api/oauth/me/admin/oauth_sources`, { headers: { authorization: `Bearer ${read}` } })).status).toBe(200);
  });
});
