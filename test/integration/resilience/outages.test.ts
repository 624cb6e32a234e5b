// What clients see while a dependency is out: FerretDB stalled (SIGSTOP), no
// worker running the flow an update goes to, the Temporal server stalled. Every
// endpoint answers 503 with Retry-After within the bound (DEPENDENCY_TIMEOUT_MS,
// 2 s here) — the authorization endpoint sends temporarily_unavailable to the
// client's redirect URI once it knows that URI is the client's — never a 500
// and never a hang; once the dependency is back, everything works again.
// The test stalls servers of its own (never the shared ones: other test files
// run meanwhile); its api and worker run in this process.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startApi, type RunningApi } from '../../../api/server.js';
import type { Config } from '../../../lib/config/env.js';
import { createLogger } from '../../../lib/runtime/log.js';
import { freePort } from '../../../tools/embedded/ports.js';
import type { ManagedProcess } from '../../../tools/embedded/process.js';
import { startFerretDb, startTemporalDevServer } from '../../../tools/embedded/servers.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { eventually, testConfig, type Json } from '../../support/harness.js';
import { getUserinfo } from '../../support/http.js';
import { startTestWorker, type TestWorker } from '../../support/test-worker.js';
import { FLOW_REDIRECT, newTestRp, runCodeFlow, type TestRp } from '../../support/token-flow.js';

const BOUND_MS = 2_000;
/** "Did not hang": a generous multiple of the bound (timing is not what is tested). */
const DID_NOT_HANG_MS = 3 * BOUND_MS;
const TIMEOUT = 180_000;

let ferret: ManagedProcess;
let temporal: ManagedProcess;
let config: Config;
let worker: TestWorker | null = null;
let api: RunningApi;
let rp: TestRp;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyflow-outages-'));

beforeAll(async () => {
  const [mongoPort, temporalPort] = [await freePort(), await freePort()];
  [ferret, temporal] = await Promise.all([
    startFerretDb({ port: mongoPort, dataDir, output: 'ignore' }),
    startTemporalDevServer({ port: temporalPort, namespace: 'default', output: 'ignore' }),
  ]);
  const port = await freePort();
  config = testConfig({
    MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/`,
    MONGODB_DATABASE: 'keyflow_outages',
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    TEMPORAL_TASK_QUEUE: 'keyflow-outages',
    DEPENDENCY_TIMEOUT_MS: String(BOUND_MS),
    PORT: String(port),
    ISSUER: `http://127.0.0.1:${port}`,
  });
  worker = await startTestWorker(config);
  api = await startApi(config, createLogger('error'));
  rp = await newTestRp(api);
}, TIMEOUT);

afterAll(async () => {
  for (const server of [ferret, temporal]) if (server?.child.pid) process.kill(server.child.pid, 'SIGCONT');
  await api?.stop();
  await worker?.stop();
  await Promise.all([ferret?.stop(), temporal?.stop()]);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  ms: number;
  headers: Headers;
  body: string;
}

/** A request, timed; its body read. */
async function timed(request: () => Promise<Response>): Promise<Answer> {
  const started = Date.now();
  const res = await request();
  const body = await res.text();
  return { status: res.status, ms: Date.now() - started, headers: res.headers, body };
}

/** 503 with Retry-After, in time. */
function expectUnavailable(answer: Answer, what: string) {
  expect([what, answer.status, answer.headers.get('retry-after'), answer.ms < DID_NOT_HANG_MS]).toEqual([what, 503, expect.stringMatching(/^\d+$/), true]);
}

function expectOAuthUnavailable(answer: Answer, what: string) {
  expectUnavailable(answer, what);
  expect([what, JSON.parse(answer.body)]).toEqual([what, { error: 'temporarily_unavailable', error_description: expect.any(String) }]);
  expect(answer.headers.get('cache-control')).toBe('no-store');
}

const token = (body: Record<string, string>) => fetch(`${api.url}/api/oauth/token`, { method: 'POST', headers: rp.auth, body: new URLSearchParams(body) });
const userinfo = (accessToken: string) => getUserinfo(api, accessToken);
const authorizeUrl = (clientId: string, state: string) =>
  `/api/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: FLOW_REDIRECT, scope: 'openid', state, code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })}`;

/** SIGSTOP / SIGCONT: the server keeps its connections and answers nothing — a stall, not a refused connection. */
const stall = (server: ManagedProcess) => process.kill(server.child.pid!, 'SIGSTOP');
const resume = (server: ManagedProcess) => process.kill(server.child.pid!, 'SIGCONT');

async function ready() {
  await eventually(async () => expect((await fetch(`${api.url}/readyz`)).status).toBe(200), 60_000, 500);
}

/** A refresh rotation works (the api, MongoDB, Temporal and a worker all answer). */
async function rotates(refreshToken: string): Promise<string> {
  let next = '';
  await eventually(
    async () => {
      const res = await token({ grant_type: 'refresh_token', refresh_token: refreshToken });
      const body = (await res.json()) as Json;
      expect([res.status, body.refresh_token]).toEqual([200, expect.any(String)]);
      next = body.refresh_token;
    },
    60_000,
    1_000,
  );
  return next;
}

it(
  'FerretDB stalled: the token endpoint, UserInfo, an account page and the authorization endpoint answer 503 in time; all work again after',
  async () => {
    const { tokens, agent } = await runCodeFlow(api, rp, 'openid profile offline_access');
    const anonymous = new HttpUser(api.url);
    // The client was just looked up (its lookups are cached briefly): its redirect URI is known good during the stall.
    expect((await anonymous.request(authorizeUrl(rp.id, 'warm'))).status).toBe(303);

    stall(ferret);
    try {
      const redirected = await timed(() => anonymous.request(authorizeUrl(rp.id, 'during-stall')));
      expect(redirected.status).toBe(303);
      expect(redirected.ms).toBeLessThan(DID_NOT_HANG_MS);
      const back = new URL(redirected.headers.get('location')!);
      expect([back.origin + back.pathname, back.searchParams.get('error'), back.searchParams.get('state')]).toEqual([
        FLOW_REDIRECT,
        'temporarily_unavailable',
        'during-stall',
      ]);

      expectOAuthUnavailable(await timed(() => token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token })), 'token');
      expectOAuthUnavailable(await timed(() => userinfo(tokens.access_token)), 'userinfo');
      const account = await timed(() => agent.request('/account'));
      expectUnavailable(account, 'account page');
      expect(account.headers.get('content-type')).toMatch(/^text\/html/);
      expect(account.body).toContain('Temporarily unavailable');
      // A client whose redirect URI cannot be checked now: the error page, never a redirect.
      const unchecked = await timed(() => anonymous.request(authorizeUrl('client-never-seen', 'x')));
      expectUnavailable(unchecked, 'authorization endpoint');
      expect(unchecked.body).toContain('Temporarily unavailable');
    } finally {
      resume(ferret);
    }

    await ready();
    const rotated = await rotates(tokens.refresh_token);
    expect((await userinfo(tokens.access_token)).status).toBe(200);
    expect((await agent.request('/account')).status).toBe(200);
    expect((await anonymous.request(authorizeUrl(rp.id, 'after'))).headers.get('location')).toMatch(/^\/login/);
    expect(rotated).not.toBe(tokens.refresh_token);
  },
  TIMEOUT,
);

it(
  'no worker: refresh rotations need none (they are decided in MongoDB) and answer 200',
  async () => {
    const { tokens } = await runCodeFlow(api, rp, 'openid offline_access');
    await worker!.stop();
    worker = null;
    await rotates(await rotates(tokens.refresh_token));
    worker = await startTestWorker(config);
    const fresh = await runCodeFlow(api, rp, 'openid offline_access');
    await rotates(fresh.tokens.refresh_token);
  },
  TIMEOUT,
);

it(
  'Temporal stalled: a refresh rotation still works (no Temporal call); a device authorization answers 503 in time and works again after',
  async () => {
    const { tokens } = await runCodeFlow(api, rp, 'openid offline_access');
    const device = () =>
      fetch(`${api.url}/api/oauth/device_authorization`, { method: 'POST', headers: rp.auth, body: new URLSearchParams({ scope: 'openid' }) });
    stall(temporal);
    let rotated: string;
    try {
      rotated = await rotates(tokens.refresh_token);
      expectOAuthUnavailable(await timed(device), 'device authorization (Temporal stalled)');
    } finally {
      resume(temporal);
    }
    await ready();
    await rotates(rotated);
    expect((await device()).status).toBe(200);
  },
  TIMEOUT,
);
