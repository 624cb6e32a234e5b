// The api process.
import '../lib/runtime/supported-node.js'; // first: refuses an old Node.js before anything else loads
import { loadConfigOrExit } from '../lib/config/env.js';
import { createLogger } from '../lib/runtime/log.js';
import { startMetricsListener, watchSigningKeys } from '../lib/runtime/metrics.js';
import { onShutdown, runMain } from '../lib/runtime/shutdown.js';
import { openApi } from './server.js';
import { startTracing } from '../lib/observability/tracing.js';

const config = loadConfigOrExit('api');
const log = createLogger(config.logLevel, undefined, { format: config.logFormat, process: 'api' });

runMain(log, async () => {
  // First: the store and the Temporal client trace their calls only if tracing is on when they are made.
  const tracing = await startTracing(config.tracing, 'keyflow-api', log);
  const metrics = config.metrics.api ? await startMetricsListener(config.metrics.api, log, { process: 'api' }) : null;
  // Listening at once: /readyz says 503 until MongoDB is there and the services are up.
  const api = await openApi(config, log);
  onShutdown(log, async () => {
    await api.stop();
    await metrics?.close();
    await tracing?.shutdown();
  });
  log.info('api listening', { url: api.url, issuer: config.issuer, metrics: metrics?.url });
  const running = await api.ready;
  if (!running) return;
  log.info('api ready', { url: api.url });
  // Read at scrape time from the keyring's cache: no request waits on it.
  if (metrics) watchSigningKeys(() => running.deps.keyring.currentSigningKeys());
});
