// Workflow inputs and activity arguments once named the MongoDB database the
// activities wrote into (`database`). Histories recorded then must still
// replay with today's code, which neither reads nor passes it: replay compares
// commands (type, activity type, order), not activity input payloads, and an
// extra field in the workflow input is ignored. The recorded RefreshFamily
// histories, with `database` added where that code put it, prove it.
import fs from 'node:fs';
import path from 'node:path';
import proto from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { PROJECT_ROOT } from '../../tools/embedded/servers.js';

const FIXTURES = path.join(PROJECT_ROOT, 'test/fixtures/histories');
const HISTORIES = ['refresh-family-rotations-and-reuse.json', 'refresh-family-rotations-past-a-run-limit-it-ignored.json'];
const DATABASE = 'keyflow_test_recorded';

beforeAll(() => {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // A Runtime already exists in this jest process: its logger stays.
  }
});

type Payload = { data?: string };

/** The JSON payload with `database` added. */
function withDatabase(payload: Payload): void {
  const value = JSON.parse(Buffer.from(payload.data!, 'base64').toString('utf8')) as Record<string, unknown>;
  payload.data = Buffer.from(JSON.stringify({ ...value, database: DATABASE })).toString('base64');
}

/** A recorded history as the code with `database` would have written it: in the workflow input and every activity's input. */
function loadWithDatabase(name: string): { history: proto.temporal.api.history.v1.History; added: number } {
  const raw = JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as { events: Record<string, { input?: { payloads?: Payload[] } }>[] };
  let added = 0;
  for (const event of raw.events) {
    for (const key of ['workflowExecutionStartedEventAttributes', 'activityTaskScheduledEventAttributes']) {
      for (const payload of event[key]?.input?.payloads ?? []) {
        withDatabase(payload);
        added++;
      }
    }
  }
  return { history: proto.temporal.api.history.v1.History.fromObject(raw), added };
}

it('replays RefreshFamily histories whose inputs and activity arguments name a database', async () => {
  const loaded = HISTORIES.map((name) => ({ workflowId: name, ...loadWithDatabase(name) }));
  // Both the start input and the revocation activity of each history carry it.
  expect(loaded.map((h) => h.added)).toEqual([2, 2]);
  const results = Worker.runReplayHistories(
    { workflowsPath: path.join(PROJECT_ROOT, 'dist/workflows/index.js'), replayName: 'replay-database-field' },
    loaded.map(({ workflowId, history }) => ({ workflowId, history })),
  );
  const outcomes: [string, string | null][] = [];
  for await (const r of results) outcomes.push([r.workflowId, r.error ? String(r.error) : null]);
  expect(outcomes).toEqual(HISTORIES.map((name) => [name, null]));
}, 120_000);
