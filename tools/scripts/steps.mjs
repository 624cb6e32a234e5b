// The long steps of a first start (installing, building, compiling), said as
// they happen on stderr: before a step starts, what it does and how long it
// usually takes; while it runs, a line every 15 s with the time so far (enough
// to see it is alive, few enough for a log); when it ends, how long it took.
//
// Plain JavaScript, like bootstrap.mjs and run.mjs that use it: they run on
// whatever `node` is on PATH. Commands run here without blocking the event
// loop, or the progress lines could not be written while they run.
import { spawn } from 'node:child_process';
import { clearInterval, setInterval } from 'node:timers';

export const PROGRESS_INTERVAL_MS = 15_000;

/** Says a line the way Keyflow's scripts do: `keyflow: …` on stderr. */
export const say = (line) => process.stderr.write(`keyflow: ${line}\n`);

/** "8 s", "2 min 05 s". */
export function duration(ms) {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/**
 * Runs `work` (a function returning a promise) as a step. `what` says what it
 * does, in the -ing form ("building FerretDB v1.24.0 from source with Go");
 * `usually` how long that takes ("2–4 min on 2 cores"); `why`, said once at
 * the start, why it runs now. A step that fails says after how long, and the
 * error goes on to the caller.
 */
export async function step(what, usually, work, { why, write = say, intervalMs = PROGRESS_INTERVAL_MS, now = Date.now } = {}) {
  write(`${what}${why ? `, ${why}` : ''} (usually ${usually})…`);
  const started = now();
  const ticker = setInterval(() => write(`… still ${what}: ${duration(now() - started)} so far`), intervalMs);
  try {
    const result = await work();
    write(`${what}: done in ${duration(now() - started)}`);
    return result;
  } catch (err) {
    write(`${what}: failed after ${duration(now() - started)}`);
    throw err;
  } finally {
    clearInterval(ticker);
  }
}

/**
 * Runs a command to its end, its output passed through to stderr (stdout is
 * the output of what runs after the step: `npm run -s cli -- users list | jq`
 * must see the CLI's JSON alone); with `capture`, its stdout is collected
 * instead and resolved. Resolves when it exits with 0;
 * rejects with an Error naming the command otherwise, or when it cannot start.
 */
export function runCommand(cmd, args, { capture = false, ...opts } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: capture ? ['ignore', 'pipe', 'inherit'] : ['inherit', 2, 'inherit'], ...opts });
    let stdout = '';
    child.stdout?.on('data', (chunk) => (stdout += chunk));
    child.on('error', (err) => reject(new Error(`${cmd} could not be run: ${err.message}`)));
    child.on('close', (code, signal) => {
      if (code === 0) resolve(capture ? stdout : undefined);
      else reject(new Error(`${[cmd, ...args].join(' ')} ${signal ? `was stopped by ${signal}` : `exited with ${code}`}`));
    });
  });
}
