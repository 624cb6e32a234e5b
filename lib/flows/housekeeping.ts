// The housekeeping flow's client: the Temporal Schedule that starts the
// housekeeping workflow, registered (or brought in line) by the worker.
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { Config } from '../config/env.js';
import type { HousekeepingInput } from '../domain/housekeeping.js';
import type { FlowClient } from './flow-client.js';

/** One schedule per deployment (task queue), so deployments sharing a namespace do not collide. */
export function housekeepingScheduleId(taskQueue: string): string {
  return `housekeeping-${taskQueue}`;
}

/** Creates the schedule, or brings an existing one in line with the configuration. */
export async function ensureHousekeepingSchedule(flows: FlowClient, settings: Config['housekeeping']): Promise<void> {
  const scheduleId = housekeepingScheduleId(flows.taskQueue);
  const input: HousekeepingInput = { batchSize: settings.batchSize, maxBatches: 20 };
  const spec = { intervals: [{ every: `${settings.intervalMinutes}m` as const }] };
  const action = {
    type: 'startWorkflow' as const,
    workflowType: 'housekeeping',
    workflowId: scheduleId,
    taskQueue: flows.taskQueue,
    args: [input],
    workflowExecutionTimeout: '30 minutes' as const,
  };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' as const };
  try {
    await flows.client.schedule.create({ scheduleId, spec, action, policies });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await flows.client.schedule.getHandle(scheduleId).update((prev) => ({ ...prev, spec, action, policies }));
  }
}
