// Durable flows survive their processes: the worker or the api is killed
// (SIGKILL) in the middle of a flow, a new one starts, and the flow finishes
// correctly with nothing lost. Runs its own worker and api processes on a
// task queue of its own, against the shared Temporal and FerretDB.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { freePort } from '../../tools/embedded/ports.js';
import { PROJECT_ROOT } from '../../tools/embedded/servers.js';
import { createClient } from '../../lib/store/clients.js';
import { openStore, type Store } from '../../lib/store/db.js';
import { createUser } from '../../lib/store/users.js';
import { eventually, testConfig, type Json } from '../support/harness.js';
import { uniqueEmail } from '../../tools/fixtures/users.js';
import { withPkce, withVerifier } from '../../tools/fixtures/pkce.js';
import { HttpUser } from '../../tools/fixtures/http-user.js';

const TIMEOUT = 180_000;
const PASSWORD = 'resilience password';
const REDIRECT = 'https://resilience-rp.example/cb';
const taskQueue = `resilience-${Date.now()}`;

let store: Store;
let port: number;
let base: string;
let env: NodeJS.ProcessEnv;
const children = new Set<ChildProcess>();

function startProcess(entry: 'api' | 'worker'): ChildProcess {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', path.join(PROJECT_ROOT, 'dist', entry, 'main.js')], { env, stdio: 'ignore' });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

async function apiReady(): Promise<void> {
  await eventually(async () => expect((await fetch(`${base}/readyz`)).status).toBe(200), 60_000, 250);
}

/** Resolves once a worker polls this test's task queue. */
async function workerPolling(): Promise<void> {
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  try {
    await eventually(
      async () => {
        const { pollers } = await connection.workflowService.describeTaskQueue({
          namespace: 'default',
          taskQueue: { name: taskQueue },
          taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        });
        // Pollers of a killed worker linger for a while; require one seen in the last seconds.
        expect(pollers.some((p) => Date.now() - Number(p.lastAccessTime?.seconds ?? 0) * 1000 < 3_000)).toBe(true);
      },
      90_000,
      250,
    );
  } finally {
    await connection.close();
  }
}

beforeAll(async () => {
  port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = { ...process.env, PORT: String(port), ISSUER: base, TEMPORAL_TASK_QUEUE: taskQueue };
  store = openStore(testConfig());
}, TIMEOUT);

afterAll(async () => {
  for (const child of [...children]) await kill(child);
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
      const worker = startProcess('worker');
      startProcess('api');
      await apiReady();
      await workerPolling();
      const client = await rp();
      const first = await tokensFor(client);
      expect(first.status).toBe(200);

      // The rotation is in flight (an update waiting on the workflow) when the worker dies.
      await kill(worker);
      const rotation = token(client, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token });
      await new Promise((r) => setTimeout(r, 1_000));
      startProcess('worker');
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
      const api = [...children].find((c) => c.spawnargs.some((a) => a.endsWith(path.join('api', 'main.js'))));
      await apiReady();
      const client = await rp();
      const first = await tokensFor(client);
      await kill(api!);
      startProcess('api');
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
      const worker = [...children].find((c) => c.spawnargs.some((a) => a.endsWith(path.join('worker', 'main.js'))));
      const client = await deviceFlowClient();
      const device = await startDevice(client);
      await kill(worker!);
      // The approval reaches Temporal while no worker runs; a new worker carries it through.
      await approveAtDevicePage(device.user_code);
      startProcess('worker');
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
      const api = [...children].find((c) => c.spawnargs.some((a) => a.endsWith(path.join('api', 'main.js'))));
      const client = await deviceFlowClient();
      const device = await startDevice(client);
      await kill(api!);
      startProcess('api');
      await apiReady();
      await approveAtDevicePage(device.user_code);
      const tokens = await pollForTokens(client, device.device_code, device.interval);
      expect(tokens.status).toBe(200);
    },
    TIMEOUT,
  );
});
