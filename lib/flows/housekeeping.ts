// The housekeeping flow's client: the Temporal Schedules that start the
// housekeeping workflow, registered (or brought in line) by the worker. The
// frequent pass runs every HOUSEKEEPING_INTERVAL_MINUTES; the daily pass
// (model/housekeeping.ts says which collections) at 03:00 UTC.
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type IntervalSpec } from '@temporalio/client';
import type { Config } from '../config/env.js';
import type { HousekeepingInput, HousekeepingPass } from '../model/housekeeping.js';
import type { FlowClient } from './flow-client.js';

/** One schedule per pass and deployment (task queue), so deployments sharing a namespace do not collide. */
export function housekeepingScheduleId(taskQueue: string, pass: HousekeepingPass = 'frequent'): string {
  return pass === 'frequent' ? `housekeeping-${taskQueue}` : `housekeeping-${pass}-${taskQueue}`;
}

/** Batches per collection and run: the daily pass reads its collections whole anyway, so it may delete more. */
const MAX_BATCHES: Record<HousekeepingPass, number> = { frequent: 20, daily: 100 };

/** Creates both schedules, or brings existing ones in line with the configuration. */
export async function ensureHousekeepingSchedule(flows: FlowClient, settings: Config['housekeeping']): Promise<void> {
  await ensureSchedule(flows, 'frequent', { every: settings.intervalMinutes * 60_000 }, settings.batchSize, 30 * 60_000);
  await ensureSchedule(flows, 'daily', { every: 24 * 3600_000, offset: 3 * 3600_000 }, settings.batchSize, 2 * 3600_000);
}

async function ensureSchedule(flows: FlowClient, pass: HousekeepingPass, interval: IntervalSpec, batchSize: number, timeoutMs: number): Promise<void> {
  const scheduleId = housekeepingScheduleId(flows.taskQueue, pass);
  const input: HousekeepingInput = { batchSize, maxBatches: MAX_BATCHES[pass], pass };
  const spec = { intervals: [interval] };
  const action = {
    type: 'startWorkflow' as const,
    workflowType: 'housekeeping',
    workflowId: scheduleId,
    taskQueue: flows.taskQueue,
    args: [input],
    workflowExecutionTimeout: timeoutMs,
  };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' as const };
  try {
    await flows.client.schedule.create({ scheduleId, spec, action, policies });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await flows.client.schedule.getHandle(scheduleId).update((prev) => ({ ...prev, spec, action, policies }));
  }
}
