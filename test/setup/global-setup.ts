// Starts what the integration tests talk to, once per run: the embedded
// Temporal dev server and FerretDB on free ports in a temporary folder, and a
// Keyflow worker process. Tests reach them through the environment set here.
// The workflow bundle is built once, for the workers tests start in-process.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { workflowBundle } from '../../worker/workflow-bundle.js';
import { createLogger } from '../../lib/runtime/log.js';
import { spawnManaged } from '../../tools/embedded/process.js';
import { freePort } from '../../tools/embedded/ports.js';
import { startFerretDb, startTemporalDevServer } from '../../tools/embedded/servers.js';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';
import { WORKFLOW_BUNDLE_ENV } from '../support/test-worker.js';
import { keepState, TEST_STATE } from './state.js';

export default async function globalSetup(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyflow-test-'));
  const logFile = path.join(dir, 'servers.log');
  const log = fs.createWriteStream(logFile);
  const output = (line: string) => log.write(line + '\n');
  const [temporalPort, mongoPort] = [await freePort(), await freePort()];
  const bundlePath = path.join(dir, 'workflow-bundle.js');
  const [temporal, ferret] = await Promise.all([
    startTemporalDevServer({ port: temporalPort, namespace: 'default', output }),
    startFerretDb({ port: mongoPort, dataDir: path.join(dir, 'ferretdb'), output }),
    // The worker process's own bundle (workflow-bundle.ts): made here once, and read by the worker started below.
    workflowBundle(path.join(PROJECT_ROOT, 'dist/workflows/index.js'), [], createLogger('error')).then(({ code }) => fs.writeFileSync(bundlePath, code)),
  ]);
  Object.assign(process.env, {
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/`,
    MONGODB_DATABASE: 'keyflow_test',
    TEMPORAL_TASK_QUEUE: 'keyflow-test',
    DATA_DIR: path.join(dir, 'data'),
    KEYFLOW_KEK: Buffer.alloc(32, 7).toString('base64'),
    ISSUER: 'http://localhost:3999',
    LOG_LEVEL: 'warn',
    // Test receivers (back-channel logout, webhooks) listen on loopback.
    OUTBOUND_ALLOWLIST: '*=127.0.0.1:*,*=localhost:*',
    // Every test comes from 127.0.0.1: per-address and site-wide limits are raised for the
    // shared suite; the tests of those limits run an api of their own with the defaults.
    SIGNIN_LIMIT_PER_IP: '1000000',
    SIGNIN_LIMIT_GLOBAL: '10000000',
    REQUEST_LIMIT_PER_IP: '1000000',
    REQUEST_LIMIT_PER_CLIENT: '1000000',
    // Passwords hashed at scrypt's cheapest allowed cost (1 MiB, not 32 MiB): the
    // suite hashes thousands, and the production cost would be a third of its
    // CPU. The test of the cost itself sets its own (passwords.test.ts).
    PASSWORD_HASH_COST: '10',
    KEYFLOW_TEST_DIR: dir,
    [WORKFLOW_BUNDLE_ENV]: bundlePath,
  });
  const worker = spawnManaged(
    'worker',
    process.execPath,
    ['--enable-source-maps', '--disable-warning=ExperimentalWarning', path.join(PROJECT_ROOT, 'dist/worker/main.js')],
    { env: process.env, output },
  );
  // The worker is up once it polls its task queue; give it the time to bundle the workflows.
  await Promise.race([
    waitForPollers(process.env.TEMPORAL_ADDRESS!, process.env.TEMPORAL_TASK_QUEUE!, logFile),
    worker.exited.then((code) => {
      throw new Error(`the test worker exited (${code}); see ${logFile}`);
    }),
  ]);
  keepState(TEST_STATE, { dir, processes: [worker, ferret, temporal], log });
}

async function waitForPollers(address: string, taskQueue: string, logFile: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      const { pollers } = await connection.workflowService.describeTaskQueue({
        namespace: 'default',
        taskQueue: { name: taskQueue },
        taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      });
      if (pollers.length > 0) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`the test worker did not poll within 90 s; see ${logFile}`);
  } finally {
    await connection.close();
  }
}
