// A Keyflow of rp-check's own: the launcher (embedded Temporal and FerretDB)
// on free ports, its data in data/rp-check (new each run, its output in
// data/rp-check.log), and the operator CLI on its database.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { spawnManaged, type ManagedProcess } from '../embedded/process.js';
import { freePort } from '../embedded/ports.js';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';

export interface KeyflowInstance {
  issuer: string;
  /** `keyflow <args…>` on this instance: its JSON output (throws with its stderr when it fails). */
  cli: (args: string[]) => Promise<Record<string, unknown>>;
  stop: () => Promise<void>;
}

/** Polls `url` until it answers 2xx (throws once `proc` exits or `timeoutMs` passes). */
export async function waitUntilUp(url: string, what: string, exited: () => boolean, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited()) throw new Error(`${what} exited before it was ready`);
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(5_000) })).ok) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`${what} did not answer ${url} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

export async function startKeyflow(): Promise<KeyflowInstance> {
  const [port, temporalPort, temporalUiPort, mongoPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const dataDir = path.join(PROJECT_ROOT, 'data', 'rp-check');
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { recursive: true });
  const issuer = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    ISSUER: issuer,
    TEMPORAL_PORT: String(temporalPort),
    TEMPORAL_UI_PORT: String(temporalUiPort),
    MONGODB_PORT: String(mongoPort),
  };
  for (const key of ['TEMPORAL_ADDRESS', 'MONGODB_URI']) delete env[key];
  const log = fs.createWriteStream(`${dataDir}.log`);
  const proc: ManagedProcess = spawnManaged('keyflow', process.execPath, [path.join(PROJECT_ROOT, 'dist', 'tools', 'scripts', 'launcher.js')], {
    env,
    output: (line) => log.write(line + '\n'),
  });
  let exited = false;
  void proc.exited.then(() => (exited = true));
  await waitUntilUp(`${issuer}/readyz`, 'Keyflow', () => exited);
  const cli = (args: string[]) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist', 'cli', 'keyflow.js'), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('close', (code) =>
        code === 0 ? resolve(JSON.parse(out) as Record<string, unknown>) : reject(new Error(`keyflow ${args[0]} ${args[1]}: ${err}`)),
      );
    });
  return { issuer, cli, stop: () => proc.stop() };
}
