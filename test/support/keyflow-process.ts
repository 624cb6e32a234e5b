// Keyflow's own processes (dist/api/main.js, dist/worker/main.js) spawned by a
// test, so the test can kill one with SIGKILL, as a crash or an OOM kill
// would, and see what a new one carries on. Every process a group started is
// killed by `killAll` (afterAll), so none outlives the test.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { PROJECT_ROOT } from '../../tools/embedded/servers.js';
import { eventually } from './harness.js';

export type Entry = 'api' | 'worker';

export interface ProcessGroup {
  start(entry: Entry): ChildProcess;
  /** The running process of `entry` started first, if any. */
  find(entry: Entry): ChildProcess | undefined;
  killAll(): Promise<void>;
}

const mainOf = (entry: Entry) => path.join(PROJECT_ROOT, 'dist', entry, 'main.js');

/** Processes on `env` (the test's environment with its database, task queue, port…). */
export function processGroup(env: NodeJS.ProcessEnv): ProcessGroup {
  const children = new Set<ChildProcess>();
  return {
    start(entry) {
      const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', mainOf(entry)], { env, stdio: 'ignore' });
      children.add(child);
      child.on('exit', () => children.delete(child));
      return child;
    },
    find: (entry) => [...children].find((c) => c.spawnargs.includes(mainOf(entry))),
    async killAll() {
      for (const child of [...children]) await killProcess(child);
    },
  };
}

/** SIGKILL: no shutdown hook runs, nothing is flushed or handed back. */
export async function killProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
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
