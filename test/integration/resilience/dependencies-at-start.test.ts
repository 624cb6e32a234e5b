// An api and a worker started while MongoDB or Temporal is down: they wait for
// it (a logged backoff), the api listening and not ready meanwhile, and serve
// once it is there. The test starts its own FerretDB and Temporal dev server
// on free ports, late; the api and worker are real processes.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../../tools/embedded/ports.js';
import type { ManagedProcess } from '../../../tools/embedded/process.js';
import { startFerretDb, startTemporalDevServer } from '../../../tools/embedded/servers.js';
import { createClient } from '../../../lib/store/clients.js';
import { openStore } from '../../../lib/store/db.js';
import { eventually, testConfig, type Json } from '../../support/harness.js';
import { processGroup } from '../../support/keyflow-process.js';

const TIMEOUT = 180_000;

interface Started {
  child: ChildProcess;
  output: () => string;
}

const processes = processGroup({ ...process.env, LOG_LEVEL: 'info' });
const servers: ManagedProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await processes.killAll();
  for (const server of servers.splice(0)) await server.stop();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function start(entry: 'api' | 'worker', env: NodeJS.ProcessEnv): Started {
  const child = processes.start(entry, env);
  return { child, output: () => processes.output(child) };
}

async function readyz(base: string): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${base}/readyz`);
  return { status: res.status, body: await res.json() };
}

/** The attempt numbers of the "waiting for <what>" lines: a backoff says so ever more rarely (attempts 1, 2, 4, 8, …). */
function waitingLines(output: string, what: string): number[] {
  return [...output.matchAll(new RegExp(`warn  waiting for ${what} .*attempt=(\\d+)`, 'g'))].map((m) => Number(m[1]));
}
const isPowerOfTwo = (n: number) => n > 0 && (n & (n - 1)) === 0;

/** `p` is still running (it must wait for its dependency, not give up). */
function stillRunning(p: Started): void {
  expect([p.child.exitCode, p.child.signalCode, p.output()]).toEqual([null, null, p.output()]);
}

/**
 * Resolves once `p` has said it is waiting for `what` at its second attempt or
 * later: it failed, backed off and tried again (an attempt may take the
 * driver's whole connection timeout, so a fixed wait would be a guess).
 */
async function triedAgain(p: Started, what: string): Promise<void> {
  await eventually(() => expect(Math.max(0, ...waitingLines(p.output(), what))).toBeGreaterThanOrEqual(2), 60_000, 250);
}

it(
  'waits for a MongoDB that is down at start: listening and not ready meanwhile, then ready and serving',
  async () => {
    const mongoPort = await freePort();
    const apiPort = await freePort();
    const base = `http://127.0.0.1:${apiPort}`;
    const env = {
      MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/`,
      MONGODB_DATABASE: 'keyflow_start_down',
      TEMPORAL_TASK_QUEUE: `start-down-${Date.now()}`,
      PORT: String(apiPort),
      ISSUER: base,
    };
    const api = start('api', env);
    const worker = start('worker', env);

    // The api answers at once: alive, not ready (naming MongoDB), and every other request 503 with Retry-After.
    await eventually(async () => expect((await fetch(`${base}/healthz`)).status).toBe(200), 30_000, 250);
    const waiting = await readyz(base);
    expect(waiting.status).toBe(503);
    expect(waiting.body.checks.mongodb).toMatch(/^unavailable: /);
    const discovery = await fetch(`${base}/.well-known/openid-configuration`);
    expect([discovery.status, discovery.headers.get('retry-after'), ((await discovery.json()) as Json).error]).toEqual([
      503,
      expect.stringMatching(/^\d+$/),
      'temporarily_unavailable',
    ]);
    const page = await fetch(`${base}/login`);
    expect([page.status, page.headers.get('content-type'), page.headers.get('retry-after')]).toEqual([
      503,
      expect.stringMatching(/^text\/html/),
      expect.stringMatching(/^\d+$/),
    ]);

    // Both try again after a failed attempt; neither process gives up.
    await Promise.all([triedAgain(api, 'MongoDB'), triedAgain(worker, 'MongoDB')]);
    stillRunning(api);
    stillRunning(worker);

    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyflow-start-down-'));
    dirs.push(dataDir);
    servers.push(await startFerretDb({ port: mongoPort, dataDir, output: 'ignore' }));
    await eventually(async () => expect(await readyz(base)).toEqual({ status: 200, body: expect.objectContaining({ status: 'ready' }) }), 60_000, 500);
    const jwks = (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as Json;
    expect(jwks.keys.length).toBeGreaterThan(0);
    expect((await fetch(`${base}/.well-known/openid-configuration`)).status).toBe(200);
    await eventually(() => expect(worker.output()).toMatch(/worker running/), 60_000);

    for (const p of [api, worker]) {
      const attempts = waitingLines(p.output(), 'MongoDB');
      expect(attempts.length).toBeGreaterThan(0);
      expect(attempts.every(isPowerOfTwo)).toBe(true);
      expect(p.output()).toMatch(/info {2}MongoDB answered /);
      expect(p.output()).not.toMatch(/Topology is closed/);
    }
  },
  TIMEOUT,
);

it(
  'waits for a Temporal that is down at start: the api not ready meanwhile, the worker waiting; both carry on once it is there',
  async () => {
    const temporalPort = await freePort();
    const apiPort = await freePort();
    const base = `http://127.0.0.1:${apiPort}`;
    const env = {
      TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
      TEMPORAL_TASK_QUEUE: `start-down-${Date.now()}`,
      MONGODB_DATABASE: 'keyflow_start_down_temporal',
      PORT: String(apiPort),
      ISSUER: base,
    };
    const api = start('api', env);
    const worker = start('worker', env);
    await eventually(async () => expect((await readyz(base)).body.checks?.temporal).toMatch(/^unavailable: /), 60_000, 250);
    expect((await readyz(base)).status).toBe(503);
    await triedAgain(worker, 'Temporal');
    stillRunning(worker);
    stillRunning(api);

    servers.push(await startTemporalDevServer({ port: temporalPort, namespace: 'default', output: 'ignore' }));
    await eventually(() => expect(worker.output()).toMatch(/worker running/), 90_000, 500);
    await eventually(async () => expect((await readyz(base)).status).toBe(200), 60_000, 500);
    // The api's flows reach Temporal now: a device authorization starts its workflow.
    const store = openStore(testConfig({ MONGODB_DATABASE: env.MONGODB_DATABASE }));
    try {
      const { client, clientSecret } = await createClient(store, { name: 'Late Temporal', redirectUris: [{ value: 'https://late.example/cb' }] });
      const device = await fetch(`${base}/api/oauth/device_authorization`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${client._id}:${clientSecret}`).toString('base64')}` },
        body: new URLSearchParams({ scope: 'openid' }),
      });
      expect(device.status).toBe(200);
    } finally {
      await store.close();
    }
    const attempts = waitingLines(worker.output(), 'Temporal');
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts.every(isPowerOfTwo)).toBe(true);
    expect(worker.output()).toMatch(/info {2}Temporal answered /);
  },
  TIMEOUT,
);
