// `npm start` end to end: the launcher brings up embedded Temporal and
// FerretDB (saying each before it starts and once it is up), a worker and the
// api; a restart keeps users, clients and keys.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, isPortOpen } from '../../../tools/embedded/ports.js';
import { PROJECT_ROOT } from '../../../lib/runtime/paths.js';
import { eventually, type Json } from '../../support/harness.js';
import { runCli } from '../../support/cli.js';
import { withPkce, withVerifier } from '../../../tools/fixtures/pkce.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';

const TIMEOUT = 240_000;

/** A `node` on PATH older than Keyflow's (the machine's own, outside node_modules), or null. */
function olderNodeOnPath(): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, 'node');
    if (dir.includes('node_modules') || !fs.existsSync(candidate)) continue;
    const version = spawnSync(candidate, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? '';
    if (Number(/^v(\d+)/.exec(version)?.[1] ?? 99) < 24) return candidate;
  }
  return null;
}

/** The pids of every descendant of `pid` (from /proc). */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may contain spaces, so read after the last ')'.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // the process ended meanwhile
    }
  }
  const found: number[] = [];
  const walk = (p: number) => {
    for (const [child, parent] of parents) {
      if (parent !== p) continue;
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

interface Launch {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

describe('npm start (the launcher)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyflow-launcher-'));
  let ports: Record<string, number>;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    ports = { PORT: await freePort(), TEMPORAL_PORT: await freePort(), TEMPORAL_UI_PORT: await freePort(), MONGODB_PORT: await freePort() };
    env = {
      ...process.env,
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      DATA_DIR: dataDir,
      ISSUER: `http://127.0.0.1:${ports.PORT}`,
      LOG_LEVEL: 'info',
    };
    // The embedded default: no external servers, the KEK generated under DATA_DIR.
    delete env.TEMPORAL_ADDRESS;
    delete env.MONGODB_URI;
    delete env.KEYFLOW_KEK;
    delete env.MONGODB_DATABASE;
    delete env.TEMPORAL_TASK_QUEUE;
    delete env.OUTBOUND_ALLOWLIST;
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  const launched: Launch[] = [];
  afterEach(async () => {
    // A failed assertion must not leave servers running (they would keep jest alive).
    for (const l of launched.splice(0)) {
      if (l.child.exitCode === null) l.child.kill('SIGTERM');
      await l.exited;
    }
  });

  /** The launcher, started with this jest's Node 24, or as `npm start` does: `<node> tools/scripts/run.mjs tools/scripts/launcher.js`. */
  function launch(extraEnv: Record<string, string> = {}, viaRunScriptWith?: string): Launch {
    const [command, args] = viaRunScriptWith
      ? [viaRunScriptWith, [path.join(PROJECT_ROOT, 'tools/scripts/run.mjs'), 'tools/scripts/launcher.js']]
      : [process.execPath, ['--disable-warning=ExperimentalWarning', path.join(PROJECT_ROOT, 'dist/tools/scripts/launcher.js')]];
    const child = spawn(command, args, {
      env: { ...env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const l: Launch = { child, output: () => out, exited: new Promise((r) => child.on('exit', (code) => r(code))) };
    launched.push(l);
    return l;
  }

  async function ready(l: Launch) {
    await eventually(
      async () => {
        if (l.child.exitCode !== null) throw new Error(`launcher exited early:\n${l.output()}`);
        const res = await fetch(`http://127.0.0.1:${ports.PORT}/readyz`);
        expect(res.status).toBe(200);
      },
      120_000,
      500,
    );
  }

  const cliEnv = () => ({ MONGODB_URI: `mongodb://127.0.0.1:${ports.MONGODB_PORT}/`, DATA_DIR: dataDir, KEYFLOW_KEK: undefined, MONGODB_DATABASE: undefined });
  const jwksKids = async () =>
    (((await (await fetch(`http://127.0.0.1:${ports.PORT}/.well-known/jwks.json`)).json()) as Json).keys as { kid: string }[]).map((k) => k.kid).sort();

  it(
    'starts everything, stops cleanly on SIGTERM, and keeps data across a restart',
    async () => {
      const first = launch();
      await ready(first);
      expect(first.output()).toMatch(/\[temporal\]/);
      // Each server is said before it starts, and when it is up, with the time it took.
      const said = (line: RegExp) => first.output().search(line);
      expect(said(/\[keyflow\] starting the Temporal dev server \(usually a few seconds\)…\n/)).toBeGreaterThanOrEqual(0);
      expect(said(/\[keyflow\] Temporal dev server \(pid \d+\) on [^\n]*; up in \d+\.\d s\n/)).toBeGreaterThan(said(/starting the Temporal dev server/));
      expect(said(/\[keyflow\] starting FerretDB \(usually a few seconds\)…\n/)).toBeGreaterThanOrEqual(0);
      expect(said(/\[keyflow\] FerretDB \(pid \d+, [^\n]*; up in \d+\.\d s\n/)).toBeGreaterThan(said(/starting FerretDB/));
      // An http issuer on this machine: webhooks may go to a local receiver, and the launcher says so.
      expect(first.output()).toContain(
        '[keyflow] development issuer: webhooks may also go to receivers on this machine (OUTBOUND_ALLOWLIST=webhooks=localhost:*,',
      );
      // The worker bundles its workflows before it polls; it may come up after the api is ready.
      await eventually(() => expect(first.output()).toMatch(/\[worker\] .*worker running/), 60_000);
      expect(first.output()).toMatch(/\[api\] .*api listening/);
      // The Temporal Web UI answers on its port.
      expect((await fetch(`http://127.0.0.1:${ports.TEMPORAL_UI_PORT}/`)).status).toBe(200);
      expect(fs.statSync(path.join(dataDir, 'kek.key')).mode & 0o777).toBe(0o600);

      const user = JSON.parse((await runCli(['users', 'create', '--email', 'restart@example.com', '--password', 'survives restarts'], cliEnv())).stdout);
      const client = JSON.parse((await runCli(['clients', 'create', '--name', 'Kept', '--redirect-uri', 'https://kept.example/cb'], cliEnv())).stdout);
      const kids = await jwksKids();
      expect(kids).toHaveLength(4); // one key per algorithm: ML-DSA-65, RS256, PS256, ES256

      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      for (const port of Object.values(ports)) expect(await isPortOpen(port)).toBe(false);

      const second = launch();
      await ready(second);
      const users = JSON.parse((await runCli(['users', 'list'], cliEnv())).stdout);
      expect(users.map((u: { id: string }) => u.id)).toContain(user.id);
      const clients = JSON.parse((await runCli(['clients', 'list'], cliEnv())).stdout);
      expect(clients.map((c: { client_id: string }) => c.client_id)).toContain(client.client_id);
      expect(await jwksKids()).toEqual(kids);
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    },
    TIMEOUT,
  );

  /** The pid of the launcher's descendant whose command line matches `cmdline` (the newest, if several), or null. */
  const pidOf = (l: Launch, cmdline: RegExp) =>
    descendants(l.child.pid!)
      .filter((pid) => {
        try {
          return cmdline.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' '));
        } catch {
          return false; // ended meanwhile
        }
      })
      .at(-1) ?? null;
  const WORKER = /dist\/worker\/main\.js/;
  const API = /dist\/api\/main\.js/;
  /** Resolves once a new process matching `cmdline` replaced `old` under the still running launcher. */
  const replaced = (l: Launch, cmdline: RegExp, old: number) =>
    eventually(() => {
      if (l.child.exitCode !== null) throw new Error(`the launcher exited:\n${l.output()}`);
      expect(pidOf(l, cmdline) ?? old).not.toBe(old);
    }, 30_000);
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  /** A code flow with a refresh rotation (the worker answers it) through the launcher's api. */
  async function codeFlowWorks(email: string, password: string, client: { client_id: string; client_secret: string }) {
    const base = `http://127.0.0.1:${ports.PORT}`;
    const agent = new HttpUser(base);
    const redirect = 'https://supervised.example/cb';
    let step = await agent.get(
      `/api/oauth/authorize?${new URLSearchParams(withPkce({ response_type: 'code', client_id: client.client_id, redirect_uri: redirect, scope: 'openid offline_access' }))}`,
    );
    step = await agent.signIn(step, email, password);
    step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
    const token = async (body: Record<string, string>) => {
      const res = await fetch(`${base}/api/oauth/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` },
        body: new URLSearchParams(body),
      });
      return { status: res.status, body: (await res.json()) as Json };
    };
    const tokens = await token(withVerifier({ grant_type: 'authorization_code', code: step.external!.searchParams.get('code')!, redirect_uri: redirect }));
    expect(tokens.status).toBe(200);
    const rotated = await token({ grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token });
    expect([rotated.status, rotated.body.refresh_token]).toEqual([200, expect.any(String)]);
  }

  it(
    'restarts a crashed worker and api (their servers untouched), and still stops everything on SIGTERM',
    async () => {
      const l = launch();
      await ready(l);
      await eventually(() => expect(l.output()).toMatch(/\[worker\] .*worker running/), 60_000);
      const servers = [pidOf(l, /server start-dev/), pidOf(l, /ferretdb/)].map((pid) => pid!);
      expect(servers).toEqual([expect.any(Number), expect.any(Number)]);
      const email = 'supervised@example.com';
      const password = 'supervised password';
      expect((await runCli(['users', 'create', '--email', email, '--password', password], cliEnv())).code).toBe(0);
      const created = await runCli(
        ['clients', 'create', '--name', 'Supervised', '--redirect-uri', 'https://supervised.example/cb', '--scope', 'openid offline_access'],
        cliEnv(),
      );
      const client = JSON.parse(created.stdout) as { client_id: string; client_secret: string };

      // kill -9 the worker: it comes back (a new pid, polling again); nothing else stops.
      const worker = pidOf(l, WORKER)!;
      process.kill(worker, 'SIGKILL');
      await replaced(l, WORKER, worker);
      expect(l.output()).toMatch(/\[keyflow\] worker exited \(SIGKILL\)[^\n]*; restarting in 1 s/);
      await eventually(() => expect(l.output().match(/\[worker\] .*worker running/g)).toHaveLength(2), 60_000);

      // kill -9 the api: it comes back and is ready again.
      const api = pidOf(l, API)!;
      process.kill(api, 'SIGKILL');
      await replaced(l, API, api);
      expect(l.output()).toMatch(/\[keyflow\] api exited \(SIGKILL\)[^\n]*; restarting in 1 s/);
      await ready(l);
      await codeFlowWorks(email, password, client);

      // The servers ran throughout, and nothing was stopped.
      expect(servers.map(alive)).toEqual([true, true]);
      expect(l.output()).not.toMatch(/stopping everything/);
      expect([alive(worker), alive(api)]).toEqual([false, false]);

      l.child.kill('SIGTERM');
      expect(await l.exited).toBe(0);
      for (const port of Object.values(ports)) expect(await isPortOpen(port)).toBe(false);
      expect(servers.map(alive)).toEqual([false, false]);
      expect(l.output().slice(l.output().indexOf('SIGTERM: stopping'))).not.toMatch(/restarting/);
    },
    TIMEOUT,
  );

  it(
    'starts none of its own servers when TEMPORAL_ADDRESS and MONGODB_URI are set',
    async () => {
      const l = launch({
        TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
        MONGODB_URI: process.env.MONGODB_URI!,
        MONGODB_DATABASE: `launcher_ext_${Date.now()}`,
        TEMPORAL_TASK_QUEUE: `launcher-ext-${Date.now()}`,
      });
      await ready(l);
      await eventually(() => expect(l.output()).toMatch(/\[worker\] .*worker running/), 60_000);
      expect(l.output()).not.toMatch(/\[(temporal|ferretdb)\]/);
      expect(await isPortOpen(ports.TEMPORAL_PORT!)).toBe(false);
      expect(await isPortOpen(ports.MONGODB_PORT!)).toBe(false);
      l.child.kill('SIGTERM');
      expect(await l.exited).toBe(0);
    },
    TIMEOUT,
  );

  it(
    'refuses to start when a port is taken, naming it',
    async () => {
      const net = await import('node:net');
      const blocker = net.createServer().listen(ports.MONGODB_PORT, '127.0.0.1');
      await new Promise((r) => blocker.once('listening', r));
      try {
        const l = launch();
        expect(await l.exited).toBe(1);
        expect(l.output()).toContain(`port ${ports.MONGODB_PORT} is already in use`);
      } finally {
        blocker.close();
      }
    },
    TIMEOUT,
  );

  // On a fresh clone the shell running `npm start` found the machine's node before the bootstrap
  // installed the pinned one, and every later `node` of the script was that old one.
  const olderNode = olderNodeOnPath();
  (olderNode ? it : it.skip)(
    `runs the launcher, the api and the worker on the pinned Node 24 when started by an older node (${olderNode ?? 'none on PATH'})`,
    async () => {
      const l = launch({}, olderNode!);
      await ready(l);
      await eventually(() => expect(l.output()).toMatch(/\[worker\] .*worker running/), 60_000);
      const pinned = fs.realpathSync(path.join(PROJECT_ROOT, 'node_modules/node/bin/node'));
      const ours = descendants(l.child.pid!)
        .map((pid) => ({ cmdline: fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' '), exe: fs.readlinkSync(`/proc/${pid}/exe`) }))
        .filter((p) => /dist\/(tools\/scripts\/launcher|api\/main|worker\/main)\.js/.test(p.cmdline));
      expect(ours).toHaveLength(3);
      for (const p of ours) expect([p.cmdline, p.exe]).toEqual([p.cmdline, pinned]);
      // SIGTERM reaches the launcher through run.mjs, and everything stops.
      l.child.kill('SIGTERM');
      expect(await l.exited).toBe(0);
      for (const port of Object.values(ports)) expect(await isPortOpen(port)).toBe(false);
    },
    TIMEOUT,
  );

  it('every entry point refuses a Node.js older than engines, in one line', async () => {
    const script = `import(${JSON.stringify(path.join(PROJECT_ROOT, 'dist/lib/runtime/node-version.js'))}).then((m) => m.exitOnUnsupportedNode('api', '20.20.2'))`;
    const faked = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(faked.status).toBe(1);
    expect(faked.stderr).toMatch(/^api: Keyflow needs Node.js 24 or newer; this is 20\.20\.2 /);
    if (olderNode) {
      for (const entry of ['api/main.js', 'worker/main.js', 'tools/scripts/launcher.js', 'cli/keyflow.js']) {
        const real = spawnSync(olderNode, [path.join(PROJECT_ROOT, 'dist', entry), 'users', 'list'], { encoding: 'utf8', env });
        expect([entry, real.status, real.stderr.split('\n').filter(Boolean).length]).toEqual([entry, 1, 1]);
        expect(real.stderr).toMatch(/needs Node\.js 24 or newer/);
      }
    }
  });
});
