// The api process.
import '../lib/runtime/supported-node.js'; // first: refuses an old Node.js before anything else loads
import { loadConfigOrExit } from '../lib/config/env.js';
import { createLogger } from '../lib/runtime/log.js';
import { onShutdown, runMain } from '../lib/runtime/shutdown.js';
import { startApi } from './server.js';

const config = loadConfigOrExit('api');
const log = createLogger(config.logLevel);

runMain(log, async () => {
  const api = await startApi(config, log);
  onShutdown(log, () => api.stop());
  log.info('api listening', { url: api.url, issuer: config.issuer });
});
