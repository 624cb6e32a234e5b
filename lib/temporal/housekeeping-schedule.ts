// The Temporal Schedule that runs the housekeeping workflow.
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Config } from '../config/env.js';
import type { HousekeepingInput } from '../../workflows/housekeeping.js';

/** One schedule per deployment (task queue), so deployments sharing a namespace do not collide. */
export function housekeepingScheduleId(taskQueue: string): string {
  return `housekeeping-${taskQueue}`;
}

/** Creates the schedule, or brings an existing one in line with the configuration. */
export async function ensureHousekeepingSchedule(client: Client, config: Pick<Config, 'temporal' | 'housekeeping'>): Promise<void> {
  const scheduleId = housekeepingScheduleId(config.temporal.taskQueue);
  const input: HousekeepingInput = { batchSize: config.housekeeping.batchSize, maxBatches: 20 };
  const spec = { intervals: [{ every: `${config.housekeeping.intervalMinutes}m` as const }] };
  const action = {
    type: 'startWorkflow' as const,
    workflowType: 'housekeeping',
    workflowId: scheduleId,
    taskQueue: config.temporal.taskQueue,
    args: [input],
    workflowExecutionTimeout: '30 minutes' as const,
  };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' as const };
  try {
    await client.schedule.create({ scheduleId, spec, action, policies });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule.getHandle(scheduleId).update((prev) => ({ ...prev, spec, action, policies }));
  }
}
