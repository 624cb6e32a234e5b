// A child the launcher keeps running (the api, the worker): whenever it exits
// it is started again, after a wait that doubles from 1 s up to 30 s so that a
// process failing at start does not spin, and that is back at 1 s once a run
// has lasted a minute. Every start and exit is said, with the pid and why.
// Only stop() ends it.
import type { ManagedProcess } from './process.js';

export interface RestartBackoff {
  firstMs: number;
  maxMs: number;
  /** A run at least this long counts as healthy: the next wait is `firstMs` again. */
  resetAfterMs: number;
}

export const RESTART_BACKOFF: RestartBackoff = { firstMs: 1_000, maxMs: 30_000, resetAfterMs: 60_000 };

export interface Supervised {
  name: string;
  /** Stops the running process (or the pending restart); no restart follows. */
  stop(): Promise<void>;
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

export function supervise(name: string, start: () => ManagedProcess, say: (line: string) => void, backoff = RESTART_BACKOFF): Supervised {
  let current: ManagedProcess;
  let wait = backoff.firstMs;
  let stopping = false;
  let restart: NodeJS.Timeout | undefined;
  const run = () => {
    const proc = start();
    const startedAt = Date.now();
    current = proc;
    say(`${name} started (pid ${proc.child.pid ?? 'none'})`);
    void proc.exited.then((code) => {
      if (stopping) return;
      const ranMs = Date.now() - startedAt;
      if (ranMs >= backoff.resetAfterMs) wait = backoff.firstMs;
      say(`${name} exited (${code}) after ${seconds(ranMs)}; restarting in ${seconds(wait)}`);
      restart = setTimeout(run, wait);
      wait = Math.min(wait * 2, backoff.maxMs);
    });
  };
  run();
  return {
    name,
    async stop() {
      stopping = true;
      clearTimeout(restart);
      await current.stop();
    },
  };
}
