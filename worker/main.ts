// The worker process: runs Keyflow's workflows and activities.
import '../lib/runtime/supported-node.js'; // first: refuses an old Node.js before anything else loads
import { fileURLToPath } from 'node:url';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../activities/index.js';
import { loadConfigOrExit } from '../lib/config/env.js';
import { ensureHousekeepingSchedule } from '../lib/flows/housekeeping.js';
import { createLogger } from '../lib/runtime/log.js';
import { startCoreServices } from '../lib/runtime/services.js';
import { onShutdown, runMain } from '../lib/runtime/shutdown.js';
import { ensureSearchAttributes, lazyTemporalClient, temporalConnectionOptions } from '../lib/temporal/connection.js';

const config = loadConfigOrExit('worker');
const log = createLogger(config.logLevel);

// The SDK's own INFO lines (bundle statistics, state changes) drown Keyflow's; show them only when debugging.
Runtime.install({ logger: new DefaultLogger(config.logLevel === 'debug' ? 'DEBUG' : 'WARN') });

runMain(log, async () => {
  const services = await startCoreServices(config, log);
  const temporal = lazyTemporalClient(config);
  const connection = await NativeConnection.connect(temporalConnectionOptions(config.temporal));
  await ensureSearchAttributes(temporal, config.temporal.namespace, log);
  await ensureHousekeepingSchedule({ client: temporal.client, taskQueue: config.temporal.taskQueue }, config.housekeeping);

  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    workflowsPath: fileURLToPath(new URL('../workflows/index.js', import.meta.url)),
    activities: createActivities({
      ...services,
      issuer: config.issuer,
      outbound: config.outbound,
      dnsResolvers: config.dnsResolvers,
      webhookTimeoutMs: config.webhookTimeoutMs,
    }),
  });
  const running = worker.run();
  log.info('worker running', { taskQueue: config.temporal.taskQueue, namespace: config.temporal.namespace, temporal: config.temporal.address });

  onShutdown(log, async () => {
    worker.shutdown();
    await running;
    await Promise.allSettled([connection.close(), temporal.close(), services.store.close()]);
  });
  await running;
});
