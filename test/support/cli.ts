// Keyflow's entry points run as real processes by a test (the operator CLI
// above all), with the test environment: what they print, how they exit; the
// CLI's commands run in the test's own process, as its entry point runs them;
// and the checks every CLI test makes of a command that must succeed or be refused.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { withCliIo } from '../../cli/io.js';
import { runKeyflow } from '../../cli/run.js';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';
import { STACK_FRAME, type Json } from './harness.js';
import { isolatedEnv } from './test-worker.js';

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI's compiled entry point under dist/. */
export const CLI_ENTRY = 'cli/keyflow.js';

export interface StartedEntry {
  child: ChildProcessByStdio<Writable, Readable, Readable>;
  /** What it printed so far. */
  output: () => { stdout: string; stderr: string };
  /** Its exit code and everything it printed, once it has ended. */
  result: Promise<ProcessResult>;
}

/**
 * Starts a compiled entry point (e.g. `cli/keyflow.js`) with this Node and
 * the test environment (`undefined` unsets a variable), `input` on its stdin.
 */
export function startEntry(entry: string, args: string[], env: Record<string, string | undefined> = {}, input = ''): StartedEntry {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', path.join(PROJECT_ROOT, 'dist', entry), ...args], {
    env: Object.fromEntries(Object.entries({ ...process.env, ...isolatedEnv(env) }).filter(([, v]) => v !== undefined)),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  // A process that exits without reading its input must not fail the test (EPIPE).
  child.stdin.on('error', () => undefined);
  child.stdin.end(input);
  const result = new Promise<ProcessResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, output: () => ({ stdout, stderr }), result };
}

/** Runs an entry point to its end (killed after `timeoutMs`), `input` on its stdin. */
export async function runEntry(
  entry: string,
  args: string[],
  env: Record<string, string | undefined> = {},
  timeoutMs = 30_000,
  input = '',
): Promise<ProcessResult> {
  const started = startEntry(entry, args, env, input);
  const timer = setTimeout(() => started.child.kill('SIGKILL'), timeoutMs);
  try {
    return await started.result;
  } finally {
    clearTimeout(timer);
  }
}

/** `keyflow <args…>` as a process of its own: what its entry point does (exit codes, flushing, refusing an old Node.js). */
export const runCliProcess = (args: string[], env: Record<string, string | undefined> = {}) => runEntry(CLI_ENTRY, args, env);

/**
 * `keyflow <args…>` run in this process by the dispatch the entry point runs
 * (cli/run.ts), with the test environment and `input` on its stdin: the
 * same output and exit code as runCli, without a new Node.js per command.
 */
export async function runCli(args: string[], env: Record<string, string | undefined> = {}, input = ''): Promise<ProcessResult> {
  let stdout = '';
  let stderr = '';
  const io = {
    env: { ...process.env, ...isolatedEnv(env) },
    stdout: (text: string) => void (stdout += text),
    stderr: (text: string) => void (stderr += text),
    stdin: async function* () {
      if (input) yield input;
    },
  };
  const code = await withCliIo(io, () => runKeyflow(args));
  return { code, stdout, stderr };
}

export interface Cli {
  /** Runs `keyflow <prefix…> <args…>`. */
  run: (...args: string[]) => Promise<ProcessResult>;
  /** The same with `input` on its stdin. */
  withInput: (input: string, ...args: string[]) => Promise<ProcessResult>;
  /** A command that must succeed (exit 0, nothing on stderr): its JSON output. */
  ok: (...args: string[]) => Promise<Json>;
}

/** The CLI's commands on `env` (e.g. a database of the test's own), each after `prefix` (e.g. `sources`), run in this process. */
export function cliOn(env: Record<string, string | undefined>, ...prefix: string[]): Cli {
  const run = (...args: string[]) => runCli([...prefix, ...args], env);
  return {
    run,
    withInput: (input, ...args) => runCli([...prefix, ...args], env, input),
    ok: async (...args) => {
      const r = await run(...args);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      return JSON.parse(r.stdout);
    },
  };
}

/** What a command that prints one JSON value a line (`audit list`) printed. */
export const jsonLines = (stdout: string): Json[] =>
  stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line): Json => JSON.parse(line));

/** A command refused with exit `code`: nothing on stdout, `message` on stderr, and no stack trace. */
export function expectRefused(r: ProcessResult, code: number, message: RegExp): void {
  expect(r.code).toBe(code);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(STACK_FRAME);
}
