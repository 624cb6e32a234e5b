// Helpers for tests: configuration from the test environment, an api on a free
// port, and waiting for state that settles asynchronously. (Entry points run as
// processes: cli.ts.)
import { parseConfig, type Config } from '../../lib/config/env.js';
import { freePort } from '../../tools/embedded/ports.js';
import { startApi, type RunningApi } from '../../api/server.js';
import type { ApiDeps } from '../../api/context.js';
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

type Overrides = Record<string, string>;

/** What the helpers read of an api under test: a RunningApi or a TestApi. */
export type ApiUnderTest = Pick<RunningApi, 'deps' | 'url'>;

/** A test file's api, readable once its beforeAll hook has started it. */
export interface TestApi {
  readonly deps: ApiDeps;
  /** The base URL it listens on. */
  readonly url: string;
  /** The issuer it was configured with (its own URL unless overridden). */
  readonly issuer: string;
  readonly app: RunningApi['app'];
  readonly server: RunningApi['server'];
}

export interface TestApiOptions {
  /**
   * What the file does with the api before it stops (drop its database, wait
   * for event deliveries). The file's own afterAll hooks, declared after
   * useTestApi, run after the stop: jest runs them in their order.
   */
  beforeStop?: (api: RunningApi) => Promise<unknown>;
}

/**
 * An api (startTestApi) for the tests of the calling file: started in a
 * beforeAll hook, stopped in an afterAll hook. Call it at the top level of the
 * test file, before hooks that use it. Overrides given as a function are read
 * in the hook (for a port or a database chosen then).
 */
export function useTestApi(overrides: Overrides | (() => Overrides | Promise<Overrides>) = {}, options: TestApiOptions = {}): TestApi {
  return runningInHooks(startTestApi, overrides, options);
}

/** useTestApi on http://localhost:<port>, for browser tests (startLocalhostApi). */
export function useLocalhostApi(overrides: Overrides | (() => Overrides | Promise<Overrides>) = {}, options: TestApiOptions = {}): TestApi {
  return runningInHooks(startLocalhostApi, overrides, options);
}

function runningInHooks(
  start: (overrides: Overrides) => Promise<RunningApi>,
  overrides: Overrides | (() => Overrides | Promise<Overrides>),
  { beforeStop }: TestApiOptions,
): TestApi {
  let api: RunningApi | undefined;
  beforeAll(async () => {
    api = await start(typeof overrides === 'function' ? await overrides() : overrides);
  });
  afterAll(async () => {
    if (!api) return;
    const stopping = api;
    try {
      await beforeStop?.(stopping);
    } finally {
      api = undefined;
      await stopping.stop();
    }
  });
  const running = () => {
    if (!api) throw new Error('the api runs from its beforeAll hook to its afterAll hook: use it in a test or a hook between them');
    return api;
  };
  return {
    get deps() {
      return running().deps;
    },
    get url() {
      return running().url;
    },
    get issuer() {
      return running().deps.config.issuer;
    },
    get app() {
      return running().app;
    },
    get server() {
      return running().server;
    },
  };
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
