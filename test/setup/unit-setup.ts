// The unit project's shared pieces, made once per run: a Temporal dev server
// in memory (the CLI that .tools holds: the time-skipping test server of
// @temporalio/testing is a download this machine cannot make) and one bundle
// of the workflow code. Workflow test files connect to the server and run a
// worker of their own on the bundle (test/support/workflow-env.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import { freePort } from '../../tools/embedded/ports.js';
import { startTemporalDevServer } from '../../tools/embedded/servers.js';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';
import { keepState, UNIT_TEST_STATE } from './state.js';

export default async function unitSetup(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyflow-unit-'));
  const log = fs.createWriteStream(path.join(dir, 'servers.log'));
  const output = (line: string) => log.write(line + '\n');
  const port = await freePort();
  const bundling = bundleWorkflowCode({ workflowsPath: path.join(PROJECT_ROOT, 'dist/workflows/index.js'), logger: quietLogger(output) });
  const temporal = await startTemporalDevServer({ port, namespace: 'default', output });
  const bundleFile = path.join(dir, 'workflows-bundle.js');
  try {
    fs.writeFileSync(bundleFile, (await bundling).code);
    await namespaceReady(`127.0.0.1:${port}`, 'default');
  } catch (err) {
    await temporal.stop(1_000);
    throw err;
  }
  Object.assign(process.env, { KEYFLOW_UNIT_TEMPORAL_ADDRESS: `127.0.0.1:${port}`, KEYFLOW_UNIT_WORKFLOW_BUNDLE: bundleFile });
  keepState(UNIT_TEST_STATE, { dir, processes: [temporal], log });
}

/** The dev server listens before its namespace exists: a worker started in between fails. */
async function namespaceReady(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    for (const deadline = Date.now() + 30_000; ; await new Promise((r) => setTimeout(r, 100))) {
      try {
        await connection.workflowService.describeNamespace({ namespace });
        return;
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`the unit tests' Temporal server has no namespace ${namespace}`, { cause: err });
      }
    }
  } finally {
    await connection.close();
  }
}

/** The bundler's progress goes to the servers' log, not the test output. */
function quietLogger(output: (line: string) => void) {
  const write = (message: string) => output(`[bundler] ${message}`);
  return { log: (_level: string, message: string) => write(message), trace: write, debug: write, info: write, warn: write, error: write };
}
