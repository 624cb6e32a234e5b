import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { RunningApi } from '../../../api/server.js';
import { freePort } from '../../../tools/embedded/ports.js';
import { startFerretDb } from '../../../tools/embedded/servers.js';
import { eventually, startTestApi } from '../../support/harness.js';
import type { Json } from '../../support/harness.js';

describe('health', () => {
  let api: RunningApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.stop());

  it('/healthz says the process is alive', async () => {
    const res = await fetch(`${api.url}/healthz`);
    expect(res.status).toBe(200);
    expect((await res.json()) as Json).toEqual({ status: 'ok' });
  });

  it('/readyz is 200 when MongoDB and Temporal answer', async () => {
    const res = await fetch(`${api.url}/readyz`);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect((await res.json()) as Json).toEqual({ status: 'ready', checks: { mongodb: 'ok', temporal: 'ok' } });
    expect(res.status).toBe(200);
  });
});

describe('readiness when a dependency stops', () => {
  it('goes to 503 naming MongoDB when FerretDB stops, and back to 200 when it returns', async () => {
    const port = await freePort();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyflow-ready-'));
    let ferret = await startFerretDb({ port, dataDir, output: 'ignore' });
    const api = await startTestApi({ MONGODB_URI: `mongodb://127.0.0.1:${port}/` });
    try {
      expect((await fetch(`${api.url}/readyz`)).status).toBe(200);
      await ferret.stop();
      const res = await fetch(`${api.url}/readyz`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as Json;
      expect(body.status).toBe('unavailable');
      expect(body.checks.temporal).toBe('ok');
      expect(body.checks.mongodb).toMatch(/^unavailable: /);
      ferret = await startFerretDb({ port, dataDir, output: 'ignore' });
      // The MongoDB driver reconnects by itself: readiness recovers without a restart.
      await eventually(async () => expect((await fetch(`${api.url}/readyz`)).status).toBe(200), 20_000);
    } finally {
      await api.stop();
      await ferret.stop();
    }
  });

  it('goes to 503 naming Temporal when Temporal cannot be reached', async () => {
    const api = await startTestApi({ TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` });
    try {
      const res = await fetch(`${api.url}/readyz`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as Json;
      expect(body.checks.mongodb).toBe('ok');
      expect(body.checks.temporal).toMatch(/^unavailable: /);
    } finally {
      await api.stop();
    }
  });
});

describe('stopping', () => {
  it('ends while a client holds a connection open without sending a request (a browser pre-opens sockets)', async () => {
    const api = await startTestApi();
    const socket = net.connect(Number(new URL(api.url).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const closedByServer = new Promise((resolve) => socket.once('close', resolve));
    // Node itself would drop the silent socket only after its 60 s header timeout: the stop must not wait for it.
    await api.stop();
    await closedByServer;
    expect(socket.destroyed).toBe(true);
  }, 30_000);
});
