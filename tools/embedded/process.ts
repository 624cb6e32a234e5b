// Child processes of the launcher and of the test setup: output prefixed per
// process, stopped with SIGTERM and, after a grace period, SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  /** Resolves with the exit code (or signal name) when the process ends. */
  exited: Promise<number | string>;
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Where prefixed output lines go; default: this process's stdout. */
  output?: ((line: string) => void) | 'ignore';
}

const COLORS = [36, 35, 33, 32, 34, 31];
let colorIndex = 0;

export function spawnManaged(name: string, command: string, args: string[], opts: SpawnOptions = {}): ManagedProcess {
  const child = spawn(command, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const color = COLORS[colorIndex++ % COLORS.length];
  const prefix = process.stdout.isTTY ? `\x1b[${color}m[${name}]\x1b[0m ` : `[${name}] `;
  const sink = opts.output === 'ignore' ? undefined : (opts.output ?? ((line: string) => process.stdout.write(line + '\n')));
  for (const stream of [child.stdout, child.stderr]) {
    const rl = createInterface({ input: stream });
    if (sink) rl.on('line', (line) => sink(prefix + line));
  }
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
    child.on('error', (err) => {
      sink?.(`${prefix}could not start ${command}: ${err.message}`);
      resolve('spawn-error');
    });
  });
  return {
    name,
    child,
    exited,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
