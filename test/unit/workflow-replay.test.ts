// Replays every recorded history in test/fixtures/histories/ against today's
// workflow code: each must make the same decisions, so that workflows started
// by an earlier version keep running after an upgrade; and every workflow the
// worker runs has at least one, so that none changes unguarded. A history's
// file name starts with its workflow's name; test/fixtures/histories/README.md
// says how and with which code each was recorded. Histories are stored with
// the proto's toObject (longs, enums and bytes as strings).
import fs from 'node:fs';
import path from 'node:path';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';
import * as workflows from '../../workflows/index.js';
import { installQuietRuntime } from '../support/workflow-env.js';

type History = proto.temporal.api.history.v1.History;

const FIXTURES = path.join(PROJECT_ROOT, 'test/fixtures/histories');
const HISTORIES = fs.readdirSync(FIXTURES).filter((name) => name.endsWith('.json'));

beforeAll(installQuietRuntime);

function load(name: string): History {
  return proto.temporal.api.history.v1.History.fromObject(JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')));
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

it('has recorded histories of every workflow the worker runs', () => {
  const recorded = (workflow: string) => HISTORIES.some((name) => name.startsWith(`${kebab(workflow)}-`));
  expect(Object.keys(workflows).filter((workflow) => !recorded(workflow))).toEqual([]);
  expect(Object.keys(workflows).length).toBeGreaterThanOrEqual(8);
});

it.each(HISTORIES)('%s replays without nondeterminism', async (name) => {
  const history = load(name);
  const workflowType = history.events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '';
  expect(name.startsWith(`${kebab(workflowType)}-`)).toBe(true);
  // The bundle of today's workflow code that the unit project's setup made.
  await Worker.runReplayHistory({ workflowBundle: { codePath: process.env.KEYFLOW_UNIT_WORKFLOW_BUNDLE! }, replayName: name }, history, name);
});
