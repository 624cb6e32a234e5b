// AuditSealer: one per deployment, always running. Seals the audit inbox into
// the signed chain (an activity: lib/audit/audit-sealing.ts), waits
// AUDIT_SEAL_INTERVAL_SECONDS when it is empty, applies retention once a day
// when AUDIT_RETENTION_DAYS is set, and continues as new every SEALS_PER_RUN
// passes with the chain's head in its input. A crashed worker's activity is
// retried and resumes the batch it left; requests never wait for it.
import { continueAsNew, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { AuditSealingActivities } from '../activities/audit-sealing.js';
import { RETENTION_EVERY_MS, SEALS_PER_RUN, type AuditSealerInput, type AuditSealerSettings, type ChainHead } from '../lib/model/audit-sealer.js';
import { auditHeadQuery, auditSettingsSignal } from '../lib/temporal/flow-messages.js';

const { sealAuditInbox } = proxyActivities<AuditSealingActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '30 seconds',
  // Until MongoDB answers again: nothing is lost meanwhile (the inbox keeps the records).
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});
const { applyAuditRetention } = proxyActivities<AuditSealingActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

export async function auditSealer(input: AuditSealerInput): Promise<void> {
  let head: ChainHead | null = input.head;
  let settings: AuditSealerSettings = { intervalMs: input.intervalMs, retentionDays: input.retentionDays };
  setHandler(auditHeadQuery, () => head);
  setHandler(auditSettingsSignal, (next) => void (settings = next));
  let nextRetentionAt = input.nextRetentionAt ?? Date.now() + settings.intervalMs;
  for (let pass = 0; pass < (input.passesPerRun ?? SEALS_PER_RUN); pass++) {
    const sealed = await sealAuditInbox({ budgetMs: 10_000 });
    if (sealed.head) head = sealed.head;
    if (settings.retentionDays > 0 && Date.now() >= nextRetentionAt) {
      await applyAuditRetention({ retentionDays: settings.retentionDays });
      nextRetentionAt = Date.now() + RETENTION_EVERY_MS;
    }
    if (!sealed.more) await sleep(settings.intervalMs);
  }
  await continueAsNew<typeof auditSealer>({ ...input, ...settings, head, nextRetentionAt });
}
