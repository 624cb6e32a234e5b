// The relying-party recipes of docs/relying-parties.md (tools/relying-parties)
// as a test runs them: each a real process on a free loopback port, in the
// language and with the library the recipe shows (the bootstrap installed the
// Python packages and built the Go program), stopped with the test file.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';
import { freePort } from '../../tools/embedded/ports.js';

const { relyingParties } = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'tools/scripts/toolchain.json'), 'utf8')) as {
  relyingParties: { python: { venv: string }; go: { binary: string } };
};
const PYTHON = path.join(PROJECT_ROOT, relyingParties.python.venv, 'bin/python');
const RP_GO = path.join(PROJECT_ROOT, relyingParties.go.binary);
const PYTHON_RECIPES = path.join(PROJECT_ROOT, 'tools/relying-parties/python');

export interface RunningRecipe {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** What it printed so far (for a failing test's message). */
  output: () => string;
  stop: () => Promise<void>;
}

/** A free loopback port, for a recipe whose redirect URI must be registered before it starts. */
export const recipePort = freePort;

/** Starts `command`; resolves once its /health answers (within 30 s), with what it printed if it does not. */
async function startRecipe(command: string, args: string[], env: Record<string, string>, port: number): Promise<RunningRecipe> {
  const child: ChildProcess = spawn(command, args, { env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let printed = '';
  child.stdout?.on('data', (d: Buffer) => (printed += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (printed += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${path.basename(command)} ${args.join(' ')} exited (${child.exitCode}): ${printed}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${path.basename(command)} ${args.join(' ')} did not answer on ${url}/health within 30 s: ${printed}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, port, output: () => printed, stop };
}

/** A Python recipe (`authlib_login.py`, `pyjwt_resource_server.py`) with its environment. */
export const startPythonRecipe = (script: string, env: Record<string, string>, port: number) =>
  startRecipe(PYTHON, [path.join(PYTHON_RECIPES, script)], { PYTHONUNBUFFERED: '1', ...env }, port);

/** The Go recipe in one of its modes (`login`, `resource`). */
export const startGoRecipe = (mode: 'login' | 'resource', env: Record<string, string>, port: number) => startRecipe(RP_GO, [mode], env, port);
