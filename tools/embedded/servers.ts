// The embedded Temporal dev server and FerretDB, as `npm start` and the test
// suite run them: pinned binaries from .tools/ (installed by tools/scripts/bootstrap.mjs),
// data in SQLite files under a data folder, loopback only.
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';
import toolchain from '../scripts/toolchain.json' with { type: 'json' };
import { devServerSearchAttributeFlags } from '../../lib/temporal/search-attributes.js';
import { spawnManaged, type ManagedProcess, type SpawnOptions } from './process.js';
import { isPortOpen, waitForPort } from './ports.js';

function binary(relative: string, installHint: string): string {
  const file = path.join(PROJECT_ROOT, relative);
  if (!fs.existsSync(file)) throw new Error(`${relative} is missing: ${installHint}`);
  return file;
}

async function startListening(name: string, port: number, cmd: string, args: string[], opts: SpawnOptions): Promise<ManagedProcess> {
  if (await isPortOpen(port)) throw new Error(`port ${port} is already in use: ${name} cannot start (stop what uses it, or choose another port)`);
  const proc = spawnManaged(name, cmd, args, opts);
  try {
    await waitForPort(port, 60_000, proc.exited);
  } catch (err) {
    await proc.stop(1_000);
    throw new Error(`${name} did not start: ${(err as Error).message}`, { cause: err });
  }
  return proc;
}

export interface TemporalDevServerOptions extends SpawnOptions {
  port: number;
  /** Web UI port; undefined runs headless. */
  uiPort?: number;
  /** SQLite file for persistent state; undefined keeps everything in memory. */
  dbFile?: string;
  namespace: string;
}

export function startTemporalDevServer(o: TemporalDevServerOptions): Promise<ManagedProcess> {
  const bin = binary(toolchain.temporal.binary, 'run `node tools/scripts/bootstrap.mjs start` (npm start does it for you)');
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(o.port), '--namespace', o.namespace, '--log-level', 'error'];
  args.push(...(o.uiPort ? ['--ui-port', String(o.uiPort)] : ['--headless']));
  if (o.dbFile) {
    fs.mkdirSync(path.dirname(o.dbFile), { recursive: true });
    // WAL with synchronous=NORMAL, as for FerretDB: durable across process crashes,
    // and every workflow start, signal and update is a history write.
    args.push('--db-filename', o.dbFile, '--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal');
  }
  for (const flag of devServerSearchAttributeFlags()) args.push('--search-attribute', flag);
  return startListening('temporal', o.port, bin, args, o);
}

export interface FerretDbOptions extends SpawnOptions {
  port: number;
  dataDir: string;
}

export function startFerretDb(o: FerretDbOptions): Promise<ManagedProcess> {
  const bin = binary(toolchain.ferretdb.binary, 'run `node tools/scripts/bootstrap.mjs start` (npm start does it for you)');
  fs.mkdirSync(o.dataDir, { recursive: true });
  const args = [
    '--handler=sqlite',
    // WAL with synchronous=NORMAL: durable across process crashes, at most the last
    // commits lost on power failure; doubles insert throughput (measured; docs/development.md, FerretDB v1).
    `--sqlite-url=file:${o.dataDir}/?_pragma=synchronous(NORMAL)`,
    `--state-dir=${o.dataDir}`,
    `--listen-addr=127.0.0.1:${o.port}`,
    '--debug-addr=-',
    '--telemetry=disable',
    '--log-level=warn',
  ];
  return startListening('ferretdb', o.port, bin, args, o);
}
