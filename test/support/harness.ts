// Helpers for tests: configuration from the test environment, an api on a free
// port, and waiting for state that settles asynchronously. (Entry points run as
// processes: cli.ts.)
import { parseConfig, type Config } from '../../lib/config/env.js';
import { freePort } from '../../tools/embedded/ports.js';
import { startApi, type RunningApi } from '../../api/server.js';
import { createLogger } from '../../lib/runtime/log.js';
import { isolatedEnv, startTestWorker } from './test-worker.js';

export function testConfig(overrides: Record<string, string> = {}): Config {
  const result = parseConfig({ ...process.env, PORT: '3999', ...overrides });
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.config;
}

/**
 * An api in this process, listening on a free port, with the issuer set to its
 * own URL. On a database of its own, it comes with a worker of its own on that
 * database's task queue, stopped with the api.
 */
export async function startTestApi(overrides: Record<string, string> = {}): Promise<RunningApi> {
  const port = await freePort();
  const config = testConfig(isolatedEnv({ PORT: String(port), ISSUER: `http://127.0.0.1:${port}`, ...overrides }));
  if (config.temporal.taskQueue === process.env.TEMPORAL_TASK_QUEUE) return startApi(config, createLogger('error'));
  const worker = await startTestWorker(config);
  const api = await startApi(config, createLogger('error')).catch(async (err: unknown) => {
    await worker.stop();
    throw err;
  });
  return { ...api, stop: () => api.stop().finally(() => worker.stop()) };
}

/**
 * An api whose issuer is http://localhost:<port>, for browser tests: WebAuthn
 * needs a domain as its RP ID, not an IP address.
 */
export async function startLocalhostApi(overrides: Record<string, string> = {}): Promise<RunningApi> {
  const port = await freePort();
  return startTestApi({ PORT: String(port), ISSUER: `http://localhost:${port}`, ...overrides });
}

/** Parsed JSON of a response under test: shape is what the assertions check. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/** A string that looks like a JavaScript stack frame: must never reach a user. */
export const STACK_FRAME = /\n\s+at .+\(.+:\d+:\d+\)/;

/** Retries an assertion until it passes or the time is up (for state that settles asynchronously). */
export async function eventually(assertion: () => Promise<void> | void, timeoutMs = 10_000, intervalMs = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await assertion();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
}

/**
 * A fixed wait, only where nothing happening meanwhile is the point (no stray
 * delivery arrives, a process keeps running): a test waiting for something to
 * happen uses `eventually` or an arrival, and one waiting for an expiry of the
 * api skips time (clock.ts).
 */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
