// The AuditSealer's activities: seal the audit inbox into the chain for up to
// a time budget (heartbeating per batch), and apply retention.
import { Context } from '@temporalio/activity';
import { sealPending } from '../lib/audit/audit-sealing.js';
import { newIndexCache } from '../lib/store/audit-index.js';
import { applyRetention } from '../lib/audit/audit-retention.js';
import type { AuditStreamWriter } from '../lib/audit/audit-stream.js';
import type { AuditTrail } from '../lib/audit/audit-trail.js';
import type { Signer } from '../lib/keys/signer.js';
import type { SealResult } from '../lib/model/audit-sealer.js';
import type { Store } from '../lib/store/db.js';

export interface AuditSealingDeps {
  store: Store;
  signer: Signer;
  audit: AuditTrail;
  /** AUDIT_STREAM's writer, if on. */
  stream: AuditStreamWriter | null;
}

export function createAuditSealingActivities(deps: AuditSealingDeps) {
  // What this worker learnt of the index between batches (saves a probe per key per batch).
  const indexCache = newIndexCache();
  return {
    async sealAuditInbox(input: { budgetMs: number }): Promise<SealResult> {
      const heartbeat = () => Context.current().heartbeat();
      return sealPending({ store: deps.store, signer: deps.signer, indexCache, ...(deps.stream ? { onSealed: deps.stream } : {}) }, input.budgetMs, heartbeat);
    },
    async applyAuditRetention(input: { retentionDays: number }): Promise<{ deletedBatches: number }> {
      return applyRetention(deps, input.retentionDays, () => Context.current().heartbeat());
    },
  };
}

export type AuditSealingActivities = ReturnType<typeof createAuditSealingActivities>;
