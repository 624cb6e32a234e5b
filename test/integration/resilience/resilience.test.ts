// Durable flows survive their processes: the worker or the api is killed
// (SIGKILL) in the middle of a flow, a new one starts, and the flow finishes
// correctly with nothing lost. Runs its own worker and api processes on a
// task queue of its own, against the shared Temporal and FerretDB.
import { freePort } from '../../../tools/embedded/ports.js';
import { createClient } from '../../../lib/store/clients.js';
import { openStore, type Store } from '../../../lib/store/db.js';
import { createUser } from '../../../lib/store/users.js';
import { testConfig, type Json } from '../../support/harness.js';
import { killProcess, processGroup, type ProcessGroup, untilReady, workerPolling } from '../../support/keyflow-process.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { withPkce, withVerifier } from '../../../tools/fixtures/pkce.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';

const TIMEOUT = 180_000;
const PASSWORD = 'resilience password';
const REDIRECT = 'https://resilience-rp.example/cb';
const taskQueue = `resilience-${Date.now()}`;

let store: Store;
let port: number;
let base: string;
let processes: ProcessGroup;

async function apiReady(): Promise<void> {
  await untilReady(base);
}

beforeAll(async () => {
  port = await freePort();
  base = `http://127.0.0.1:${port}`;
  // A replaced worker bundles its workflows before it polls, longer than the api's default bound on a
  // call (which would answer 503): here a rotation in flight waits for the new worker (outages.test.ts has the 503).
  processes = processGroup({ ...process.env, PORT: String(port), ISSUER: base, TEMPORAL_TASK_QUEUE: taskQueue, DEPENDENCY_TIMEOUT_MS: '60000' });
  store = openStore(testConfig());
}, TIMEOUT);

afterAll(async () => {
  await processes?.killAll();
  await store.close();
});

async function rp() {
  const { client, clientSecret } = await createClient(store, {
    name: 'Resilience RP',
    redirectUris: [{ type: 'equals', value: REDIRECT }],
    allowedScopes: ['openid', 'offline_access'],
    idTokenSignedResponseAlg: 'RS256',
  });
  return { id: client._id, auth: `Basic ${Buffer.from(`${client._id}:${clientSecret}`).toString('base64')}` };
}

async function tokensFor(client: { id: string; auth: string }) {
  const email = uniqueEmail('resil');
  await createUser(store, { email, password: PASSWORD });
  const agent = new HttpUser(base);
  let step = await agent.get(
    `/api/oauth/authorize?${new URLSearchParams(withPkce({ response_type: 'code', client_id: client.id, redirect_uri: REDIRECT, scope: 'openid offline_access' }))}`,
  );
  step = await agent.signIn(step, email, PASSWORD);
  step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
  return token(client, withVerifier({ grant_type: 'authorization_code', code: step.external!.searchParams.get('code')!, redirect_uri: REDIRECT }));
}

async function token(client: { auth: string }, body: Record<string, string>): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${base}/api/oauth/token`, {
    method: 'POST',
    headers: { authorization: client.auth, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

describe('durable flows survive their processes', () => {
  it(
    'finishes a refresh rotation whose worker was killed in the middle, and loses nothing',
    async () => {
      const worker = processes.start('worker');
      processes.start('api');
      await apiReady();
      await workerPolling(taskQueue);
      const client = await rp();
      const first = await tokensFor(client);
      expect(first.status).toBe(200);

      // The rotation is in flight (an update waiting on the workflow) when the worker dies.
      await killProcess(worker);
      const rotation = token(client, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token });
      await new Promise((r) => setTimeout(r, 1_000));
      processes.start('worker');
      const rotated = await rotation;
      expect(rotated.status).toBe(200);
      expect(rotated.body.refresh_token).toEqual(expect.any(String));

      // The family's state survived: the old token is superseded (reuse revokes), the new one works.
      const next = await token(client, { grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token });
      expect(next.status).toBe(200);
      const reuse = await token(client, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token });
      expect(reuse.body.error).toBe('invalid_grant');
      expect((await token(client, { grant_type: 'refresh_token', refresh_token: next.body.refresh_token })).body.error).toBe('invalid_grant');
    },
    TIMEOUT,
  );

  it(
    'carries on a refresh family after the api process is killed and replaced',
    async () => {
      const api = processes.find('api');
      await apiReady();
      const client = await rp();
      const first = await tokensFor(client);
      await killProcess(api!);
      processes.start('api');
      await apiReady();
      const rotated = await token(client, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token });
      expect(rotated.status).toBe(200);
      const introspection = await fetch(`${base}/api/oauth/introspect`, {
        method: 'POST',
        headers: { authorization: client.auth, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: rotated.body.refresh_token }),
      });
      expect(((await introspection.json()) as Json).active).toBe(true);
    },
    TIMEOUT,
  );

  const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

  async function deviceFlowClient() {
    const { client, clientSecret } = await createClient(store, {
      name: 'Resilience device',
      redirectUris: [{ value: 'https://device.example/cb' }],
      allowedScopes: ['openid', 'offline_access'],
      idTokenSignedResponseAlg: 'RS256',
    });
    return { id: client._id, auth: `Basic ${Buffer.from(`${client._id}:${clientSecret}`).toString('base64')}` };
  }

  async function startDevice(client: { auth: string }) {
    const res = await fetch(`${base}/api/oauth/device_authorization`, {
      method: 'POST',
      headers: { authorization: client.auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ scope: 'openid offline_access' }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { device_code: string; user_code: string; interval: number };
  }

  async function approveAtDevicePage(userCode: string) {
    const email = uniqueEmail('resil-dev');
    await createUser(store, { email, password: PASSWORD });
    const agent = new HttpUser(base);
    let step = await agent.get('/device');
    step = await agent.submit(await step.res.text(), '/device', { user_code: userCode });
    if (step.url.includes('/login')) step = await agent.signIn(step, email, PASSWORD);
    const done = await agent.submit(await step.res.text(), '/device/consent', { decision: 'allow' });
    expect(done.res.status).toBe(200);
  }

  /** Polls as a device would (respecting the interval) until tokens or a final error. */
  async function pollForTokens(client: { auth: string }, deviceCode: string, interval: number) {
    for (let i = 0; i < 30; i++) {
      await new Promise((r) => setTimeout(r, interval * 1000 + 100));
      const r = await token(client, { grant_type: GRANT, device_code: deviceCode });
      if (r.status === 200) return r;
      if (r.body.error === 'slow_down') interval += 5;
      else if (r.body.error !== 'authorization_pending') return r;
    }
    throw new Error('no tokens after 30 polls');
  }

  it(
    'finishes a device flow whose worker was killed while it waited for the user',
    async () => {
      await apiReady();
      const worker = processes.find('worker');
      const client = await deviceFlowClient();
      const device = await startDevice(client);
      await killProcess(worker!);
      // The approval reaches Temporal while no worker runs; a new worker carries it through.
      await approveAtDevicePage(device.user_code);
      processes.start('worker');
      const tokens = await pollForTokens(client, device.device_code, device.interval);
      expect(tokens.status).toBe(200);
      expect(tokens.body.refresh_token).toEqual(expect.any(String));
      // Exactly once: the next poll is refused.
      expect((await token(client, { grant_type: GRANT, device_code: device.device_code })).body.error).toBe('invalid_grant');
    },
    TIMEOUT,
  );

  it(
    'finishes a device flow across a replaced api process',
    async () => {
      await apiReady();
      const api = processes.find('api');
      const client = await deviceFlowClient();
      const device = await startDevice(client);
      await killProcess(api!);
      processes.start('api');
      await apiReady();
      await approveAtDevicePage(device.user_code);
      const tokens = await pollForTokens(client, device.device_code, device.interval);
      expect(tokens.status).toBe(200);
    },
    TIMEOUT,
  );
});
