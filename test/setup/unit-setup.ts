// The unit project's shared pieces, made once per run: a Temporal dev server
// in memory (the CLI that .tools holds: the time-skipping test server of
// @temporalio/testing is a download this machine cannot make) and one bundle
// of the workflow code. Workflow test files connect to the server and run a
// worker of their own on the bundle (test/support/workflow-env.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { freePort } from '../../tools/embedded/ports.js';
import { PROJECT_ROOT, startTemporalDevServer } from '../../tools/embedded/servers.js';
import { keepState, UNIT_TEST_STATE } from './state.js';

export default async function unitSetup(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyflow-unit-'));
  const log = fs.createWriteStream(path.join(dir, 'servers.log'));
  const output = (line: string) => log.write(line + '\n');
  const port = await freePort();
  const [temporal, bundle] = await Promise.all([
    startTemporalDevServer({ port, namespace: 'default', output }),
    bundleWorkflowCode({ workflowsPath: path.join(PROJECT_ROOT, 'dist/workflows/index.js'), logger: quietLogger(output) }),
  ]);
  const bundleFile = path.join(dir, 'workflows-bundle.js');
  fs.writeFileSync(bundleFile, bundle.code);
  Object.assign(process.env, { KEYFLOW_UNIT_TEMPORAL_ADDRESS: `127.0.0.1:${port}`, KEYFLOW_UNIT_WORKFLOW_BUNDLE: bundleFile });
  keepState(UNIT_TEST_STATE, { dir, processes: [temporal], log });
}

/** The bundler's progress goes to the servers' log, not the test output. */
function quietLogger(output: (line: string) => void) {
  const write = (message: string) => output(`[bundler] ${message}`);
  return { log: (_level: string, message: string) => write(message), trace: write, debug: write, info: write, warn: write, error: write };
}
