// Replay of RefreshFamily histories recorded with the workflow code from
// before continue-as-new (test/fixtures/histories/, stored with the proto's
// toObject: longs, enums and bytes as strings) against today's code: it must
// make the same decisions, so families started before the change keep running.
// The second history is the case the `patched()` marker exists for: its input
// already names rotationsPerRun (an api updated before its worker), yet it ran
// past that limit without continuing as new.
import fs from 'node:fs';
import path from 'node:path';
import proto from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { PROJECT_ROOT } from '../../tools/embedded/servers.js';

const FIXTURES = path.join(PROJECT_ROOT, 'test/fixtures/histories');
const HISTORIES = ['refresh-family-rotations-and-reuse.json', 'refresh-family-rotations-past-a-run-limit-it-ignored.json'];

beforeAll(() => {
  // The replay worker's state changes are INFO lines; keep the output to warnings.
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // A Runtime already exists in this jest process: its logger stays.
  }
});

function load(name: string): proto.temporal.api.history.v1.History {
  return proto.temporal.api.history.v1.History.fromObject(JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')));
}

it('replays RefreshFamily histories recorded before continue-as-new without nondeterminism', async () => {
  const results = Worker.runReplayHistories(
    { workflowsPath: path.join(PROJECT_ROOT, 'dist/workflows/index.js'), replayName: 'refresh-family-replay' },
    HISTORIES.map((name) => ({ workflowId: name, history: load(name) })),
  );
  const outcomes: [string, string | null][] = [];
  for await (const r of results) outcomes.push([r.workflowId, r.error ? String(r.error) : null]);
  expect(outcomes).toEqual(HISTORIES.map((name) => [name, null]));
}, 120_000);
