// Workflows under test without MongoDB or HTTP: a worker of the test file's
// own, on the unit project's shared dev server and workflow bundle
// (test/setup/unit-setup.ts), runs the real workflow code with stub
// activities. The stubs are plain functions; every call is recorded with the
// workflow that made it and its attempt, so a test checks what a workflow
// asked of the outside world. Timers run in real time: tests give short
// lifetimes in the inputs.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import proto from '@temporalio/proto';
import type { Client, WorkflowHandle, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { SearchAttributes } from '../../lib/temporal/search-attributes.js';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';

/** One stub activity call: Keyflow's activities take one object argument. */
export interface ActivityCall {
  name: string;
  arg: unknown;
  workflowId: string;
  attempt: number;
  local: boolean;
  startToCloseTimeoutMs: number;
}

type StubActivities = Record<string, (arg: never) => Promise<unknown>>;

export interface WorkflowWorker {
  client: Client;
  taskQueue: string;
  /** The calls one workflow made, in order. */
  callsOf(workflowId: string): ActivityCall[];
  /** The calls one workflow made, once there are at least `count` (activities run after the update or signal that causes them). */
  waitForCalls(workflowId: string, count: number): Promise<ActivityCall[]>;
  /** Starts a workflow of one input on this worker's task queue (a fresh id unless given). */
  start<I, R>(
    workflow: (input: I) => Promise<R>,
    input: NoInfer<I>,
    workflowId?: string,
  ): Promise<WorkflowHandleWithFirstExecutionRunId<(input: I) => Promise<R>>>;
  stop(): Promise<void>;
}

/** Worker logs at WARN and above, without the activity failures that stubs raise on purpose (the tests check their outcome). */
export function installQuietRuntime(): void {
  const warnings = new DefaultLogger('WARN');
  const logger = new DefaultLogger('WARN', (entry) => {
    if (entry.message !== 'Activity failed') warnings.log(entry.level, entry.message, entry.meta);
  });
  try {
    Runtime.install({ logger });
  } catch {
    // A Runtime already exists in this jest process: its logger stays.
  }
}

function sharedServer(): { address: string; bundle: string } {
  const address = process.env.KEYFLOW_UNIT_TEMPORAL_ADDRESS;
  const bundle = process.env.KEYFLOW_UNIT_WORKFLOW_BUNDLE;
  if (!address || !bundle) throw new Error('no shared Temporal server: run the unit project (jest --selectProjects unit), whose global setup starts it');
  return { address, bundle };
}

function recorded(activities: StubActivities, calls: ActivityCall[]): StubActivities {
  const wrap = (name: string, fn: StubActivities[string]) => async (arg: never) => {
    const info = Context.current().info;
    calls.push({
      name,
      arg,
      workflowId: info.workflowExecution?.workflowId ?? '',
      attempt: info.attempt,
      local: info.isLocal,
      startToCloseTimeoutMs: info.startToCloseTimeoutMs,
    });
    return fn(arg);
  };
  return Object.fromEntries(Object.entries(activities).map(([name, fn]) => [name, wrap(name, fn)]));
}

/** A worker for one test file: `name` prefixes its task queue and workflow ids. */
export async function startWorkflowWorker(name: string, activities: StubActivities): Promise<WorkflowWorker> {
  installQuietRuntime();
  const { address, bundle } = sharedServer();
  const env = await TestWorkflowEnvironment.createFromExistingServer({ address, namespace: 'default' });
  const taskQueue = `${name}-${randomUUID()}`;
  const calls: ActivityCall[] = [];
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: 'default',
    taskQueue,
    workflowBundle: { codePath: bundle },
    activities: recorded(activities, calls),
  }).catch(async (err: unknown) => {
    await env.teardown();
    throw err;
  });
  const running = worker.run();
  const callsOf = (workflowId: string) => calls.filter((c) => c.workflowId === workflowId);
  return {
    client: env.client,
    taskQueue,
    callsOf,
    async waitForCalls(workflowId, count) {
      for (const deadline = Date.now() + 10_000; callsOf(workflowId).length < count;) {
        if (Date.now() > deadline) throw new Error(`${workflowId} made ${callsOf(workflowId).length} activity calls, not ${count}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return callsOf(workflowId);
    },
    start: (workflow, input, workflowId = `${name}-${randomUUID()}`) => env.client.workflow.start(workflow, { taskQueue, workflowId, args: [input] }),
    async stop() {
      worker.shutdown();
      await running;
      await env.teardown();
    },
  };
}

export interface Latch {
  /** Called by the stub activity: resolves once the test opens the latch. */
  pass(): Promise<void>;
  /** Resolves when the activity has reached the latch. */
  reached: Promise<void>;
  open(): void;
}

/** Holds a workflow inside one of its activities until the test opens it. */
export function latch(): Latch {
  let arrive!: () => void;
  let open!: () => void;
  const reached = new Promise<void>((resolve) => (arrive = resolve));
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    reached,
    open,
    pass() {
      arrive();
      return opened;
    },
  };
}

/** The KeyflowState search attribute of a workflow (what an operator filters on in the UI). */
export async function flowState(handle: WorkflowHandle): Promise<string | undefined> {
  return (await handle.describe()).typedSearchAttributes.get(SearchAttributes.state);
}

/**
 * Writes the history of a finished workflow into test/fixtures/histories/<name>.json
 * when KEYFLOW_RECORD_HISTORIES=1 (the replay test then replays it against
 * every later version of the workflow); otherwise does nothing. How to record:
 * test/fixtures/histories/README.md.
 */
export async function recordHistory(handle: WorkflowHandle, name: string): Promise<void> {
  if (process.env.KEYFLOW_RECORD_HISTORIES !== '1') return;
  const history = await handle.fetchHistory();
  const json = proto.temporal.api.history.v1.History.toObject(proto.temporal.api.history.v1.History.fromObject(history), {
    longs: String,
    enums: String,
    bytes: String,
  });
  fs.writeFileSync(path.join(PROJECT_ROOT, 'test', 'fixtures', 'histories', `${name}.json`), JSON.stringify(json, null, 1) + '\n');
}
