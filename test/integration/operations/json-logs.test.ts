// An api process with LOG_FORMAT=json: every line it writes is one JSON object
// with time, level, process and msg, and the lines a request causes carry its
// request id, the one its response's X-Request-Id says; each request has one
// access-log line naming its route template, status and duration.
import { freePort } from '../../../tools/embedded/ports.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { eventually } from '../../support/harness.js';
import { processGroup, untilReady } from '../../support/keyflow-process.js';

const TIMEOUT = 90_000;
let base: string;
const processes = processGroup({ ...process.env, LOG_LEVEL: 'info', LOG_FORMAT: 'json' });
afterAll(() => processes.killAll('SIGTERM'));

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  processes.start('api', { PORT: String(port), ISSUER: base });
  await untilReady(base);
}, TIMEOUT);

const parsed = () =>
  processes
    .output()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

it(
  'writes one JSON object a line, and a request’s lines carry its X-Request-Id',
  async () => {
    const agent = new HttpUser(base);
    const email = uniqueEmail('json-logs');
    const password = 'json logs password 41c9';
    const page = await (await agent.request('/login')).text();
    const failed = await agent.submit(page, '/login', { email, password });
    expect(failed.res.status).toBe(401);
    const requestId = failed.res.headers.get('x-request-id')!;

    await eventually(() => expect(parsed().filter((l) => l.msg === 'sign-in failed')).toHaveLength(1), 10_000, 100);
    const lines = parsed();
    for (const line of lines) {
      expect(line).toMatchObject({ level: expect.stringMatching(/^(debug|info|warn|error)$/), process: 'api', msg: expect.any(String) });
      expect(new Date(line.time as string).toISOString()).toBe(line.time);
    }
    expect(lines.find((l) => l.msg === 'api listening')).toBeDefined();
    expect(lines.find((l) => l.msg === 'sign-in failed')).toMatchObject({ level: 'info', requestId, method: 'password', reason: 'bad credentials' });
    // The access log (ACCESS_LOG is on by default): one line per request, its route as a template, never the path or query.
    await eventually(() => expect(parsed().filter((l) => l.msg === 'request' && l.requestId === requestId)).toHaveLength(1), 10_000, 100);
    expect(parsed().filter((l) => l.msg === 'request' && l.requestId === requestId)).toEqual([
      expect.objectContaining({ level: 'info', method: 'POST', route: '/login', status: 401, durationMs: expect.any(Number) }),
    ]);
    const probe = 'probe-9d2e41';
    const token = await fetch(`${base}/api/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: probe, client_id: probe }),
    });
    expect(token.status).toBe(400);
    const unknown = await fetch(`${base}/no/such/${probe}?code=${probe}`);
    expect(unknown.status).toBe(404);
    await eventually(() => expect(parsed().filter((l) => l.msg === 'request' && l.status === 404)).toHaveLength(1), 10_000, 100);
    const requests = parsed().filter((l) => l.msg === 'request' && (l.route === '/api/oauth/token' || l.status === 404));
    expect(requests).toEqual([
      expect.objectContaining({ method: 'POST', route: '/api/oauth/token', status: 400, requestId: token.headers.get('x-request-id') }),
      expect.objectContaining({ method: 'GET', route: 'unmatched', status: 404, requestId: unknown.headers.get('x-request-id') }),
    ]);
    const all = processes.output();
    expect(all).not.toContain(probe);
    expect(all).not.toContain(email);
    expect(all).not.toContain(password);
  },
  TIMEOUT,
);
