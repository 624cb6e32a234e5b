// The worker process: runs Keyflow's workflows and activities.
import '../lib/runtime/supported-node.js'; // first: refuses an old Node.js before anything else loads
import { fileURLToPath } from 'node:url';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../activities/index.js';
import { createAuditTrail } from '../lib/audit/audit-trail.js';
import { loadConfigOrExit } from '../lib/config/env.js';
import { ensureHousekeepingSchedule } from '../lib/flows/housekeeping.js';
import { ensureAuditSealer } from '../lib/flows/audit-sealer.js';
import { auditStream } from '../lib/audit/audit-stream.js';
import { createLogger } from '../lib/runtime/log.js';
import { startMetricsListener } from '../lib/runtime/metrics.js';
import { startCoreServices } from '../lib/runtime/services.js';
import { onShutdown, runMain } from '../lib/runtime/shutdown.js';
import { waitFor } from '../lib/runtime/wait-for.js';
import { ensureSearchAttributes, lazyTemporalClient, temporalConnectionOptions } from '../lib/temporal/connection.js';
import { coreCallCounter } from './core-calls.js';
import { startTracing } from '../lib/observability/tracing.js';
import { tracingWorkerOptions, tracingWorkflowModules } from './tracing.js';
import { workflowBundle } from './workflow-bundle.js';
import { startWorkerHealth } from './health.js';

const config = loadConfigOrExit('worker');
const log = createLogger(config.logLevel, undefined, { format: config.logFormat, process: 'worker' });

// With metrics on, the native connection's requests are buffered so they can be counted (core-calls.ts).
const coreCalls = config.metrics.worker ? coreCallCounter() : null;
// The SDK's own INFO lines (bundle statistics, state changes) drown Keyflow's; show them only when debugging.
// They go through Keyflow's logger: the same format (LOG_FORMAT) and redaction.
const sdkLevels = { TRACE: 'debug', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;
Runtime.install({
  logger: new DefaultLogger(config.logLevel === 'debug' ? 'DEBUG' : 'WARN', (entry) => log[sdkLevels[entry.level]](entry.message, entry.meta)),
  ...(coreCalls ? { telemetryOptions: { metrics: { buffer: coreCalls.buffer } } } : {}),
});

runMain(log, async () => {
  // First: the store and the Temporal client made below trace their calls only if tracing is on when they are made.
  const tracing = await startTracing(config.tracing, 'keyflow-worker', log);
  // First: a probe sees a starting worker (alive, not ready) while it waits for MongoDB and Temporal.
  const health = config.workerHealth ? await startWorkerHealth(config.workerHealth, log) : null;
  const metrics =
    config.metrics.worker && coreCalls
      ? await startMetricsListener(config.metrics.worker, log, { process: 'worker', beforeScrape: () => coreCalls.drain() })
      : null;
  const draining = coreCalls ? setInterval(() => coreCalls.drain(), 1_000) : undefined;
  const services = await startCoreServices(config, log);
  health?.update({ store: services.store });
  const audit = createAuditTrail({ store: services.store, log, recording: config.audit.recording });
  const temporal = lazyTemporalClient(config);
  // A Temporal still coming up (or down) is waited for, as MongoDB is.
  const connection = await waitFor('Temporal', () => NativeConnection.connect(temporalConnectionOptions(config.temporal)), log, {
    fields: { address: config.temporal.address },
  });
  health?.update({ connection });
  await ensureSearchAttributes(temporal, config.temporal.namespace, log);
  await ensureHousekeepingSchedule({ client: temporal.client, taskQueue: config.temporal.taskQueue }, config.housekeeping);
  await ensureAuditSealer(
    { client: temporal.client, taskQueue: config.temporal.taskQueue },
    { intervalMs: config.audit.sealIntervalMs, retentionDays: config.audit.retentionDays },
  );

  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    workflowBundle: await workflowBundle(fileURLToPath(new URL('../workflows/index.js', import.meta.url)), tracingWorkflowModules(tracing), log),
    ...tracingWorkerOptions(tracing),
    activities: createActivities({
      ...services,
      audit,
      auditStream: auditStream(config.audit.stream),
      issuer: config.issuer,
      outbound: config.outbound,
      dnsResolvers: config.dnsResolvers,
      webhookTimeoutMs: config.webhookTimeoutMs,
    }),
  });
  const running = worker.run();
  health?.update({ worker });
  log.info('worker running', {
    taskQueue: config.temporal.taskQueue,
    namespace: config.temporal.namespace,
    temporal: config.temporal.address,
    metrics: metrics?.url,
  });

  onShutdown(log, async () => {
    worker.shutdown();
    await running;
    await audit.flush();
    await Promise.allSettled([connection.close(), temporal.close(), services.store.close()]);
    clearInterval(draining);
    await metrics?.close();
    await tracing?.shutdown();
    await health?.close();
  });
  await running;
});
