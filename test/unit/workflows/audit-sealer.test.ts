// AuditSealer: seals at once while the inbox has more, waits its interval when
// it is empty, answers the chain's head, applies retention when due with the
// settings the last signal gave, and continues as new with its head.
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { WorkflowContinuedAsNewError } from '@temporalio/client';
import type { SealResult } from '../../../lib/model/audit-sealer.js';
import { auditSealer } from '../../../workflows/audit-sealer.js';
import { startWorkflowWorker, type WorkflowWorker, recordHistory } from '../../support/workflow-env.js';

let w: WorkflowWorker;
/** What each sealer's next seals answer, by workflow id. */
const answers = new Map<string, SealResult[]>();
const EMPTY: SealResult = { batches: 0, records: 0, more: false, head: null };

beforeAll(async () => {
  w = await startWorkflowWorker('audit-sealer', {
    sealAuditInbox() {
      return Promise.resolve(answers.get(Context.current().info.workflowExecution!.workflowId)?.shift() ?? EMPTY);
    },
    applyAuditRetention(input: { retentionDays: number }) {
      return Promise.resolve({ deletedBatches: input.retentionDays });
    },
  });
});
afterAll(() => w?.stop());

/** The first run alone (its result is its continue-as-new, not the next run's). */
const firstRun = (id: string, runId: string) => w.client.workflow.getHandle(id, runId, { followRuns: false });

it('seals again at once while records are left, waits when none are, keeps the head and continues as new with it', async () => {
  const id = `audit-sealer-${randomUUID()}`;
  answers.set(id, [
    { batches: 2, records: 1000, more: true, head: { seq: 1, hash: 'h1' } },
    { batches: 1, records: 3, more: false, head: { seq: 2, hash: 'h2' } },
  ]);
  const handle = await w.start(auditSealer, { intervalMs: 50, retentionDays: 0, head: null, passesPerRun: 3 }, id);
  // The first run ends in continue-as-new after three passes; the next run starts from its head.
  const first = firstRun(id, handle.firstExecutionRunId);
  await expect(first.result()).rejects.toBeInstanceOf(WorkflowContinuedAsNewError);
  const next = w.client.workflow.getHandle(id);
  expect(await next.query('head')).toEqual({ seq: 2, hash: 'h2' });
  const calls = w.callsOf(id).map((c) => c.name);
  expect(calls.slice(0, 3)).toEqual(['sealAuditInbox', 'sealAuditInbox', 'sealAuditInbox']);
  expect(calls).not.toContain('applyAuditRetention');
  await recordHistory(first, 'audit-sealer-seals-and-continues');
  await next.terminate('test over');
});

it('applies retention once it is due, with the settings a signal gave', async () => {
  const id = `audit-sealer-${randomUUID()}`;
  const handle = await w.start(auditSealer, { intervalMs: 50, retentionDays: 0, head: null, passesPerRun: 4 }, id);
  await handle.signal('settings', { intervalMs: 50, retentionDays: 30 });
  await expect(firstRun(id, handle.firstExecutionRunId).result()).rejects.toBeInstanceOf(WorkflowContinuedAsNewError);
  const retention = w.callsOf(id).filter((c) => c.name === 'applyAuditRetention');
  expect(retention.map((c) => c.arg)).toEqual([{ retentionDays: 30 }]);
  await recordHistory(firstRun(id, handle.firstExecutionRunId), 'audit-sealer-retention-after-settings');
  await w.client.workflow.getHandle(id).terminate('test over');
});
