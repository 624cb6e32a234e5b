// The production topology on this machine, without Docker (docs/deployment.md,
// "The production topology, run here"): Debian's PostgreSQL; Temporal's own
// server on it (default store and SQL visibility) with the namespace and
// search attributes registered as an operator does; FerretDB on the same
// PostgreSQL as MongoDB-protocol storage; two apis behind nginx terminating
// TLS, which trust X-Forwarded-For from nginx alone; two workers.
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';
import { spawnManaged, type ManagedProcess, type SpawnOptions } from '../embedded/process.js';
import { freePort, waitForPort } from '../embedded/ports.js';
import { startNginx, type RunningNginx } from './nginx.js';
import { startPostgres, TEMPORAL_DB_PASSWORD, TEMPORAL_DB_USER, type RunningPostgres } from './postgres.js';
import { registerNamespace, setupSchemas, startTemporalServer, type RunningTemporal } from './temporal-server.js';

const toolchain = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'tools/scripts/toolchain.json'), 'utf8')) as { ferretdb: { binary: string } };
const NODE = process.execPath;
const NAMESPACE = 'keyflow';

export interface StackOptions {
  dir: string;
  output: SpawnOptions['output'];
  /** Settings for the apis and workers beside the topology's own (e.g. limits, an outbound allow-list). */
  env?: Record<string, string>;
}

export interface Stack {
  issuer: string;
  /** What the apis and workers run with (the CLI, too). */
  env: Record<string, string>;
  certificate: string;
  apis: KeyflowProcess[];
  workers: KeyflowProcess[];
  ferretdb: ManagedProcess;
  temporal: RunningTemporal;
  postgres: RunningPostgres;
  nginx: RunningNginx;
  stop(): Promise<void>;
}

/** An api or worker process that can be killed and started again on the same port. */
export interface KeyflowProcess {
  name: string;
  current(): ManagedProcess;
  /** Its health port (/readyz): the api's own port, the worker's WORKER_HEALTH_ADDR. */
  healthPort: number;
  kill(signal?: NodeJS.Signals): Promise<void>;
  start(): Promise<void>;
}

function keyflowProcess(name: string, entry: string, env: Record<string, string>, healthPort: number, output: SpawnOptions['output']): KeyflowProcess {
  let proc: ManagedProcess;
  const start = async () => {
    proc = spawnManaged(name, NODE, ['--enable-source-maps', '--disable-warning=ExperimentalWarning', path.join(PROJECT_ROOT, 'dist', entry)], {
      env: { ...process.env, ...env },
      output,
    });
    await waitForReady(healthPort, proc);
  };
  return {
    name,
    current: () => proc,
    healthPort,
    start,
    async kill(signal = 'SIGKILL') {
      proc.child.kill(signal);
      await proc.exited;
    },
  };
}

/** Until http://127.0.0.1:`port`/readyz answers 200 (60 s at most). */
async function waitForReady(port: number, proc: ManagedProcess): Promise<void> {
  await waitForPort(port, 60_000, proc.exited);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${proc.name} did not become ready on port ${port}`);
}

export async function startStack({ dir, output, env: extra = {} }: StackOptions): Promise<Stack> {
  fs.mkdirSync(dir, { recursive: true });
  const started: { stop: () => Promise<void> }[] = [];
  const stopAll = async () => {
    for (const s of started.reverse()) await s.stop().catch(() => undefined);
  };
  try {
    const postgres = await startPostgres(path.join(dir, 'postgres'), await freePort(), output);
    started.push(postgres.process);
    setupSchemas(postgres.port);
    const temporal = await startTemporalServer(path.join(dir, 'temporal'), postgres.port, output);
    started.push(temporal.process);
    await registerNamespace(temporal.address, NAMESPACE);

    // FerretDB v1 on the same PostgreSQL, in a database of its own.
    execFileSync('psql', ['-h', '127.0.0.1', '-p', String(postgres.port), '-U', 'postgres', '-c', `CREATE DATABASE ferretdb OWNER ${TEMPORAL_DB_USER}`], {
      stdio: 'pipe',
    });
    const mongoPort = await freePort();
    const ferretDir = path.join(dir, 'ferretdb');
    fs.mkdirSync(ferretDir, { recursive: true });
    const ferretdb = spawnManaged(
      'ferretdb',
      path.join(PROJECT_ROOT, toolchain.ferretdb.binary),
      [
        '--handler=postgresql',
        `--postgresql-url=postgres://${TEMPORAL_DB_USER}:${TEMPORAL_DB_PASSWORD}@127.0.0.1:${postgres.port}/ferretdb`,
        `--listen-addr=127.0.0.1:${mongoPort}`,
        `--state-dir=${ferretDir}`,
        '--debug-addr=-',
        '--telemetry=disable',
        '--log-level=warn',
      ],
      { output },
    );
    started.push(ferretdb);
    await waitForPort(mongoPort, 30_000, ferretdb.exited);

    const proxyPort = await freePort();
    const apiPorts = [await freePort(), await freePort()];
    const issuer = `https://localhost:${proxyPort}`;
    const env: Record<string, string> = {
      ISSUER: issuer,
      BIND_ADDRESS: '127.0.0.1',
      // nginx connects from loopback: the one proxy whose X-Forwarded-For is believed.
      TRUSTED_PROXIES: '127.0.0.1',
      MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/`,
      MONGODB_DATABASE: 'keyflow',
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: NAMESPACE,
      TEMPORAL_TASK_QUEUE: 'keyflow',
      KEYFLOW_KEK: randomBytes(32).toString('base64'),
      DATA_DIR: path.join(dir, 'data'),
      LOG_LEVEL: 'warn',
      ...extra,
    };
    const apis = apiPorts.map((port, i) => keyflowProcess(`api-${i + 1}`, 'api/main.js', { ...env, PORT: String(port) }, port, output));
    const workerPorts = [await freePort(), await freePort()];
    const workers = workerPorts.map((port, i) =>
      keyflowProcess(`worker-${i + 1}`, 'worker/main.js', { ...env, WORKER_HEALTH_ADDR: `127.0.0.1:${port}` }, port, output),
    );
    // The first api alone makes the first signing keys; the others start after it.
    await apis[0]!.start();
    await Promise.all([apis[1]!.start(), ...workers.map((w) => w.start())]);
    for (const p of [...apis, ...workers]) started.push({ stop: () => p.current().stop() });
    const nginx = await startNginx(path.join(dir, 'nginx'), proxyPort, apiPorts, output);
    started.push(nginx.process);
    return { issuer, env, certificate: nginx.certificate, apis, workers, ferretdb, temporal, postgres, nginx, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
