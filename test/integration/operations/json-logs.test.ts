// An api process with LOG_FORMAT=json: every line it writes is one JSON object
// with time, level, process and msg, and the lines a request causes carry its
// request id, the one its response's X-Request-Id says.
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
    const all = processes.output();
    expect(all).not.toContain(email);
    expect(all).not.toContain(password);
  },
  TIMEOUT,
);
