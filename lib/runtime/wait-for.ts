// A dependency a process cannot start without (MongoDB, Temporal), tried until
// it answers: 0.5 s after the first failure, the wait doubling up to 10 s. The
// failures are logged ever more rarely (attempts 1, 2, 4, 8, …), so an outage
// of an hour leaves ten lines, not one per attempt; the answer that ends the
// wait is logged too.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from './log.js';

export interface WaitForOptions {
  /** Ends the wait (the process is stopping): waitFor rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Said with every line (e.g. the address), never a secret. */
  fields?: Record<string, unknown>;
  /** Told of every failure (e.g. for a readiness check to name it). */
  onFailure?: (err: Error) => void;
  firstMs?: number;
  maxMs?: number;
}

const isPowerOfTwo = (n: number) => (n & (n - 1)) === 0;

export async function waitFor<T>(what: string, attempt: () => Promise<T>, log: Logger, options: WaitForOptions = {}): Promise<T> {
  const { signal, fields, firstMs = 500, maxMs = 10_000 } = options;
  const started = performance.now();
  let wait = firstMs;
  for (let n = 1; ; n++) {
    signal?.throwIfAborted();
    try {
      const value = await attempt();
      if (n > 1) log.info(`${what} answered`, { ...fields, attempts: n, waited_ms: Math.round(performance.now() - started) });
      return value;
    } catch (err) {
      signal?.throwIfAborted();
      const error = err instanceof Error ? err : new Error(String(err));
      options.onFailure?.(error);
      if (isPowerOfTwo(n)) log.warn(`waiting for ${what}`, { ...fields, attempt: n, error: error.message.split('\n')[0], retry_in_ms: wait });
      await sleep(wait, undefined, { signal });
      wait = Math.min(wait * 2, maxMs);
    }
  }
}
