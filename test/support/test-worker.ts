// A Keyflow worker inside a test process, for a test that runs an api on a
// MongoDB database of its own: the api starts its flows on a task queue of
// that database, and this worker's activities write into that database, as
// the production worker does into its own. The shared worker (global setup)
// serves the shared database and its task queue only.
import path from 'node:path';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createAuditTrail } from '../../lib/audit/audit-trail.js';
import { createActivities } from '../../activities/index.js';
import type { Config } from '../../lib/config/env.js';
import { createLogger } from '../../lib/runtime/log.js';
import { startCoreServices } from '../../lib/runtime/services.js';
import { temporalConnectionOptions } from '../../lib/temporal/connection.js';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';

/** Where global setup puts the workflow bundle it builds once per run. */
export const WORKFLOW_BUNDLE_ENV = 'KEYFLOW_TEST_WORKFLOW_BUNDLE';

/** The task queue of a database's flows in tests: one worker per database, and the CLI finds it by name. */
export const taskQueueOf = (database: string) => `keyflow-test-${database}`;

/**
 * The environment of a process (api, CLI) on `env.MONGODB_DATABASE`: when that
 * is not the shared database, its flows go to that database's task queue
 * (unless the test names one).
 */
export function isolatedEnv<T extends Record<string, string | undefined>>(env: T): T {
  const database = env.MONGODB_DATABASE;
  if (!database || database === process.env.MONGODB_DATABASE || env.TEMPORAL_TASK_QUEUE) return env;
  return { ...env, TEMPORAL_TASK_QUEUE: taskQueueOf(database) };
}

export interface TestWorker {
  stop(): Promise<void>;
}

/**
 * A worker on `config`'s task queue, namespace and database, with the
 * workflows of the bundle global setup built (or, outside a jest run with that
 * setup, of dist/workflows). No housekeeping schedule: nothing outlives the test.
 */
export async function startTestWorker(config: Config): Promise<TestWorker> {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') }); // the SDK's state changes are INFO lines
  } catch {
    // A Runtime already exists in this jest process: its logger stays.
  }
  const services = await startCoreServices(config, createLogger('error'));
  const connection = await NativeConnection.connect(temporalConnectionOptions(config.temporal));
  const bundle = process.env[WORKFLOW_BUNDLE_ENV];
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    ...(bundle ? { workflowBundle: { codePath: bundle } } : { workflowsPath: path.join(PROJECT_ROOT, 'dist/workflows/index.js') }),
    activities: createActivities({
      ...services,
      audit: createAuditTrail({ store: services.store, log: createLogger('error') }),
      issuer: config.issuer,
      outbound: config.outbound,
      dnsResolvers: config.dnsResolvers,
      webhookTimeoutMs: config.webhookTimeoutMs,
    }),
  });
  const running = worker.run();
  running.catch(() => undefined); // a failed worker fails the test at stop(), not the jest process
  return {
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await Promise.allSettled([connection.close(), services.store.close()]);
    },
  };
}
