// Keyflow as an operator runs it on several machines, on loopback: a Temporal
// dev server and a FerretDB of the cluster's own (never the suite's shared
// ones, which other test files use at the same time), and `nodes` launchers
// (`npm start`'s supervisor) each running one api and one worker on them, with
// one issuer and one key-encryption key. For the fault tests: the test stops,
// stalls and kills these processes as a failure would.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { openStore, type Store } from '../../lib/store/db.js';
import { freePort } from '../../tools/embedded/ports.js';
import type { ManagedProcess } from '../../tools/embedded/process.js';
import { startFerretDb, startTemporalDevServer } from '../../tools/embedded/servers.js';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';
import { untilReady } from './keyflow-process.js';

export interface ClusterNode {
  name: string;
  url: string;
  port: number;
  launcher: ChildProcess;
  /** The pid of the node's api or worker as its launcher last started it. */
  pid(child: 'api' | 'worker'): number | undefined;
  /** Resolves when the launcher says `child` started again after `since` (a line count of its output). */
  restarted(child: 'api' | 'worker', since: number, timeoutMs: number): Promise<number>;
  /** Lines the launcher printed so far. */
  lines: string[];
}

export interface Cluster {
  issuer: string;
  env: NodeJS.ProcessEnv;
  temporal: ManagedProcess;
  ferret: ManagedProcess;
  nodes: ClusterNode[];
  /** The cluster's database, for tests' fixtures (users, clients). */
  store: Store;
  stop(): Promise<void>;
}

const STARTED = /^\[keyflow\] (api|worker) started \(pid (\d+)\)/;

function launchNode(name: string, port: number, env: NodeJS.ProcessEnv): ClusterNode {
  const launcher = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', path.join(PROJECT_ROOT, 'dist/tools/scripts/launcher.js')], {
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const pids: Record<string, number> = {};
  const waiters: (() => void)[] = [];
  for (const stream of [launcher.stdout, launcher.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      const m = STARTED.exec(line);
      if (m) pids[m[1]!] = Number(m[2]);
      for (const w of waiters.splice(0)) w();
    });
  }
  const node: ClusterNode = {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    launcher,
    lines,
    pid: (child) => pids[child],
    restarted(child, since, timeoutMs) {
      const found = () =>
        lines
          .slice(since)
          .map((l) => STARTED.exec(l))
          .find((m) => m?.[1] === child);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name}: ${child} was not started again within ${timeoutMs} ms`)), timeoutMs);
        const check = () => {
          const m = found();
          if (m) {
            clearTimeout(timer);
            resolve(Number(m[2]));
          } else waiters.push(check);
        };
        check();
      });
    },
  };
  return node;
}

/** `nodes` launchers on a Temporal and a FerretDB of their own; resolves once every api is ready. */
export async function startCluster(nodes: number, overrides: Record<string, string> = {}): Promise<Cluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyflow-cluster-'));
  const log = fs.createWriteStream(path.join(dir, 'servers.log'));
  const output = (line: string) => log.write(line + '\n');
  const [temporalPort, mongoPort, ...ports] = await Promise.all(Array.from({ length: nodes + 2 }, () => freePort()));
  const [temporal, ferret] = await Promise.all([
    startTemporalDevServer({ port: temporalPort!, namespace: 'default', output }),
    startFerretDb({ port: mongoPort!, dataDir: path.join(dir, 'ferretdb'), output }),
  ]);
  const issuer = `http://127.0.0.1:${ports[0]}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/`,
    MONGODB_DATABASE: 'keyflow_cluster',
    TEMPORAL_TASK_QUEUE: 'keyflow-cluster',
    DATA_DIR: path.join(dir, 'data'),
    ISSUER: issuer,
    LOG_LEVEL: 'warn',
    ...overrides,
  };
  const started = ports.map((port, i) => launchNode(`node ${i + 1}`, port, env));
  const store = openStore({ mongo: { uri: env.MONGODB_URI!, database: env.MONGODB_DATABASE!, embedded: false, port: mongoPort! } });
  const cluster: Cluster = {
    issuer,
    env,
    temporal,
    ferret,
    nodes: started,
    store,
    async stop() {
      await store.close().catch(() => undefined);
      await Promise.all(
        cluster.nodes.map(
          (n) =>
            new Promise<void>((resolve) => {
              if (n.launcher.exitCode !== null || n.launcher.signalCode !== null) return resolve();
              n.launcher.once('exit', () => resolve());
              n.launcher.kill('SIGTERM');
              setTimeout(() => n.launcher.kill('SIGKILL'), 20_000).unref();
            }),
        ),
      );
      await Promise.all([temporal.stop(), ferret.stop()]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await Promise.all(started.map((n) => untilReady(n.url, 120_000)));
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

/** One more launcher on the cluster (it is stopped with the cluster); resolves once it listens, ready or not. */
export async function startNode(cluster: Cluster, name: string): Promise<ClusterNode> {
  const node = launchNode(name, await freePort(), cluster.env);
  cluster.nodes.push(node);
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      await fetch(`${node.url}/healthz`, { signal: AbortSignal.timeout(2_000) });
      return node;
    } catch {
      if (Date.now() > deadline) throw new Error(`${name} did not listen within 120 s`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}
