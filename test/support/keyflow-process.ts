// Keyflow's own processes (dist/api/main.js, dist/worker/main.js) spawned by a
// test, so the test can kill one with SIGKILL, as a crash or an OOM kill
// would, and see what a new one carries on, or read what one printed. Every
// process a group started is killed by `killAll` (afterAll), so none outlives
// the test.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';
import { eventually } from './harness.js';

export type Entry = 'api' | 'worker';

export interface ProcessGroup {
  /** Starts `entry` on the group's environment, `env` on top of it. */
  start(entry: Entry, env?: NodeJS.ProcessEnv): ChildProcess;
  /** What `child` printed so far (stdout and stderr, as they came); without `child`, what every process of the group printed. */
  output(child?: ChildProcess): string;
  /** The running process of `entry` started first, if any. */
  find(entry: Entry): ChildProcess | undefined;
  /** Ends every process still running: SIGKILL unless another signal is given (then it waits for each to exit). */
  killAll(signal?: NodeJS.Signals): Promise<void>;
}

const mainOf = (entry: Entry) => path.join(PROJECT_ROOT, 'dist', entry, 'main.js');

/** Processes on `env` (the test's environment with its database, task queue, port…). */
export function processGroup(env: NodeJS.ProcessEnv): ProcessGroup {
  const children = new Set<ChildProcess>();
  const outputs = new Map<ChildProcess, string[]>();
  const all: string[] = [];
  return {
    start(entry, own = {}) {
      const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', mainOf(entry)], {
        env: { ...env, ...own },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const printed: string[] = [];
      outputs.set(child, printed);
      const keep = (d: Buffer) => {
        printed.push(d.toString());
        all.push(d.toString());
      };
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      children.add(child);
      child.on('exit', () => children.delete(child));
      return child;
    },
    output: (child) => (child ? (outputs.get(child) ?? []) : all).join(''),
    find: (entry) => [...children].find((c) => c.spawnargs.includes(mainOf(entry))),
    async killAll(signal = 'SIGKILL') {
      for (const child of [...children]) await killProcess(child, signal);
    },
  };
}

/** SIGKILL by default: no shutdown hook runs, nothing is flushed or handed back. Resolves once the process has exited. */
export async function killProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
}

/** Resolves once a worker polls `taskQueue` (the pollers of a killed worker linger: one seen in the last seconds). */
export async function workerPolling(taskQueue: string): Promise<void> {
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  try {
    await eventually(
      async () => {
        const { pollers } = await connection.workflowService.describeTaskQueue({
          namespace: 'default',
          taskQueue: { name: taskQueue },
          taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        });
        expect(pollers.some((p) => Date.now() - Number(p.lastAccessTime?.seconds ?? 0) * 1000 < 3_000)).toBe(true);
      },
      90_000,
      250,
    );
  } finally {
    await connection.close();
  }
}

/** Resolves once the api at `url` answers /readyz with 200 (each try given 2 s: a stalled api is not waited for). */
export async function untilReady(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) })).status === 200) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${url} was not ready within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
