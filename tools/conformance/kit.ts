// The OpenID Foundation conformance suite kit (`oidf.sh`, by default in
// ../shared/oidf beside the checkout; OIDF_KIT names another): it builds the
// suite from source, makes the TLS certificate and nginx front, starts and
// stops the suite, and runs one plan with the suite's own runner. Keyflow's
// side (its process, user, clients and the suite's configuration) is this
// folder's.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';

export interface Kit {
  script: string;
  /** The environment every kit command runs with (OIDF_AKP_PATCH=0 unless set: the suite's JWKS check unpatched). */
  env: NodeJS.ProcessEnv;
  work: string;
}

export function findKit(): Kit {
  const dir = path.resolve(process.env.OIDF_KIT ?? path.join(PROJECT_ROOT, '..', 'shared', 'oidf'));
  const script = path.join(dir, 'oidf.sh');
  if (!fs.existsSync(script)) {
    throw new Error(
      `no conformance kit at ${dir} (oidf.sh missing): put the kit beside the checkout as ../shared/oidf, or set OIDF_KIT to its folder (see docs/conformance.md)`,
    );
  }
  const env = { ...process.env, OIDF_AKP_PATCH: process.env.OIDF_AKP_PATCH ?? '0', KEYFLOW_DIR: PROJECT_ROOT };
  return { script, env, work: process.env.OIDF_WORK ?? path.join(process.env.HOME ?? '/tmp', '.cache', 'oidf') };
}

/** The kit commands running now, and those an interruption stopped. */
const running = new Set<ChildProcess>();
const interrupted = new WeakSet<ChildProcess>();

/**
 * Stops the kit commands running now (`oidf.sh run` and the suite's runner it
 * starts, a process group each): their kitCommand rejects, whatever
 * `allowFailure` says, so the run goes on to its clean-up (stopping the suite
 * and Keyflow) instead of to the next plan.
 */
export function interruptKitCommands(): void {
  for (const child of running) {
    interrupted.add(child);
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
  }
}

/**
 * Runs `oidf.sh <command> …`, its output passed through (and `onLine` shown each line); rejects on a non-zero exit
 * unless `allowFailure`, and when interrupted. In a process group of its own, so an interruption stops all of it.
 */
export function kitCommand(kit: Kit, args: string[], opts: { allowFailure?: boolean; onLine?: (line: string) => void } = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [kit.script, ...args], { env: kit.env, cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    running.add(child);
    for (const [stream, out] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ] as const) {
      let buffered = '';
      stream.on('data', (chunk: Buffer) => {
        out.write(chunk);
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) opts.onLine?.(line);
      });
    }
    child.on('error', reject);
    child.on('close', (code) => {
      running.delete(child);
      if (interrupted.has(child)) reject(new Error(`oidf.sh ${args[0]} interrupted`));
      else if (code === 0 || opts.allowFailure) resolve(code ?? 1);
      else reject(new Error(`oidf.sh ${args.join(' ')} exited with ${code}`));
    });
  });
}

/**
 * The environment the kit expects of Keyflow (`oidf.sh env`: issuer, ports,
 * proxies, outbound allowlist, CA file). Its `export NAME=value` lines are
 * quoted for bash (`printf %q`: a comma may come as `\,`), so bash itself
 * evaluates them and prints each value as it is; `unset NAME` lines remove one.
 */
export async function keyflowEnv(kit: Kit): Promise<Record<string, string | undefined>> {
  const evaluate =
    'out=$(bash "$1" env) || exit 1; eval "$out"; printf "%s\\n" "$out" | while read -r verb rest; do ' +
    'case $verb in export) name=${rest%%=*}; printf "%s=%s\\0" "$name" "${!name}";; unset) printf "%s\\0" "$rest";; esac; done';
  const chunks: Buffer[] = [];
  const child = spawn('bash', ['-c', evaluate, 'bash', kit.script], { env: kit.env, stdio: ['ignore', 'pipe', 'inherit'] });
  child.stdout.on('data', (d: Buffer) => chunks.push(d));
  await new Promise((resolve) => child.on('close', resolve));
  const env: Record<string, string | undefined> = {};
  for (const entry of Buffer.concat(chunks).toString('utf8').split('\0').filter(Boolean)) {
    const at = entry.indexOf('=');
    if (at > 0) env[entry.slice(0, at)] = entry.slice(at + 1);
    else env[entry] = undefined;
  }
  if (!env.ISSUER) throw new Error('oidf.sh env named no ISSUER');
  return env;
}
