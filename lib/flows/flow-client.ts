// What every per-flow client module shares: the Temporal client and task queue
// a process talks to, one way to start a flow with its search attributes, and
// one translation of "this workflow has already ended" into a typed result.
// Only the modules of lib/flows/ (and the worker, and lib/temporal/) import
// @temporalio/client; the api, store and CLI call the per-flow functions.
import { realTimeMs } from '../runtime/clock.js';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client, type WorkflowStartOptions } from '@temporalio/client';
import type { Workflow } from '@temporalio/common';
import { flowSearchAttributes, type FlowAttributes } from '../temporal/search-attributes.js';

/** The Temporal side of a process that drives flows: the client and the task queue its workers poll. */
export interface FlowClient {
  client: Client;
  taskQueue: string;
  /**
   * How long one call (a start, a signal, an update with its answer) may take
   * before it fails with DEADLINE_EXCEEDED: the api's request paths, where an
   * update to a flow no worker runs would otherwise wait forever. Unset: unbounded.
   */
  callTimeoutMs?: number;
}

/** Runs `call` (every Temporal request it makes, retries included) within the flow client's bound, if it has one. */
export function bounded<T>(flows: FlowClient, call: () => Promise<T>): Promise<T> {
  return flows.callTimeoutMs === undefined ? call() : flows.client.withDeadline(realTimeMs() + flows.callTimeoutMs, call);
}

/** The answer of a call to a flow that may have ended meanwhile (completed, expired, revoked or purged). */
export type WhileRunning<T> = { ended: false; value: T } | { ended: true };

/**
 * Whether an error says the workflow is no longer running. The SDK reports a
 * signal, update or query to a closed workflow either as WorkflowNotFoundError
 * or as a gRPC NOT_FOUND / FAILED_PRECONDITION whose message says so.
 */
export function isWorkflowEnded(err: unknown): boolean {
  return err instanceof WorkflowNotFoundError || /already completed|not found/i.test((err as Error | undefined)?.message ?? '');
}

/** Runs a call to a flow (within the bound); an ended flow is a result (`{ ended: true }`), any other failure is thrown. */
export async function whileRunning<T>(flows: FlowClient, call: () => Promise<T>): Promise<WhileRunning<T>> {
  try {
    return { ended: false, value: await bounded(flows, call) };
  } catch (err) {
    if (isWorkflowEnded(err)) return { ended: true };
    throw err;
  }
}

export interface StartFlow<W extends Workflow> {
  workflowId: string;
  args: Parameters<W>;
  /** Search attributes for the Temporal UI: client, user and the flow's first state. */
  attributes: FlowAttributes;
  /** Extra start options (e.g. a reuse policy or a start delay). */
  options?: Partial<Omit<WorkflowStartOptions, 'workflowId' | 'args' | 'taskQueue' | 'typedSearchAttributes'>>;
}

/** Starts a flow on the process's task queue with its search attributes; `started: false` when that workflow id already runs or ran under a reject-duplicate policy. */
export async function startFlow<W extends Workflow>(flows: FlowClient, workflowType: string, start: StartFlow<W>): Promise<{ started: boolean }> {
  try {
    await bounded(flows, () =>
      flows.client.workflow.start<Workflow>(workflowType, {
        ...(start.options ?? {}),
        workflowId: start.workflowId,
        taskQueue: flows.taskQueue,
        args: start.args as unknown[],
        typedSearchAttributes: flowSearchAttributes(start.attributes),
      }),
    );
    return { started: true };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return { started: false };
    throw err;
  }
}
