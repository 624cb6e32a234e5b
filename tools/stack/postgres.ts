// Debian's PostgreSQL for the production topology (tools/stack): a cluster of
// its own in a folder, on loopback, run as the `postgres` user when this
// process is root (PostgreSQL refuses to run as root), with the `temporal`
// role Temporal's server and schema tool connect as.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { spawnManaged, type ManagedProcess, type SpawnOptions } from '../embedded/process.js';
import { waitForPort } from '../embedded/ports.js';

export const TEMPORAL_DB_USER = 'temporal';
export const TEMPORAL_DB_PASSWORD = 'temporal';

/** A PostgreSQL program: on PATH (Debian links some into /usr/local/bin), else under /usr/lib/postgresql/<version>/bin. */
function pgBinary(name: string): string {
  for (const dir of (process.env.PATH ?? '').split(':')) if (fs.existsSync(path.join(dir, name))) return path.join(dir, name);
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (fs.existsSync(path.join(root, v, 'bin', name))) return path.join(root, v, 'bin', name);
  throw new Error(`PostgreSQL's ${name} is missing: install Debian's postgresql (apt-get install postgresql)`);
}

/** The command prefix that runs a PostgreSQL program as `postgres` when this process is root. */
function asPostgres(): { prefix: string[]; uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return { prefix: [] };
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { prefix: ['runuser', '-u', 'postgres', '--'], uid, gid };
}

export interface RunningPostgres {
  process: ManagedProcess;
  port: number;
}

/** Initialises a cluster in `dir` (trust on loopback: the folder is this run's) and starts it on 127.0.0.1:`port`. */
export async function startPostgres(dir: string, port: number, output: SpawnOptions['output']): Promise<RunningPostgres> {
  const user = asPostgres();
  const data = path.join(dir, 'data');
  fs.mkdirSync(dir, { recursive: true });
  if (user.uid !== undefined) fs.chownSync(dir, user.uid, user.gid!);
  const run = (name: string, args: string[]) => {
    const [cmd, ...rest] = [...user.prefix, pgBinary(name), ...args];
    execFileSync(cmd!, rest, { stdio: 'pipe', cwd: dir });
  };
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-instructions']);
  const [cmd, ...args] = [...user.prefix, pgBinary('postgres'), '-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', dir];
  const proc = spawnManaged('postgres', cmd, args, { output, cwd: dir });
  await waitForPort(port, 30_000, proc.exited);
  const sql = (statement: string) =>
    execFileSync(pgBinary('psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-v', 'ON_ERROR_STOP=1', '-c', statement], { stdio: 'pipe' });
  // Connections can be refused for a moment after the port opens.
  for (let attempt = 0; ; attempt++) {
    try {
      sql(`CREATE ROLE ${TEMPORAL_DB_USER} LOGIN CREATEDB PASSWORD '${TEMPORAL_DB_PASSWORD}'`);
      break;
    } catch (err) {
      if (attempt >= 20) throw err;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  return { process: proc, port };
}
