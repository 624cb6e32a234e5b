// The AuditSealer flow's input and what it keeps: pure, imported by workflow
// code. One sealer per deployment (task queue) seals the audit inbox into the
// signed chain every few seconds and applies retention once a day; its
// history carries the chain's head, a copy of it outside MongoDB
// (`keyflow audit verify` compares the two: a chain cut short in MongoDB shows).

export interface ChainHead {
  seq: number;
  hash: string;
}

export interface AuditSealerSettings {
  /** How long the sealer waits when the inbox is empty (AUDIT_SEAL_INTERVAL_SECONDS). */
  intervalMs: number;
  /** AUDIT_RETENTION_DAYS; 0 keeps every record. */
  retentionDays: number;
}

export interface AuditSealerInput extends AuditSealerSettings {
  /** The newest batch sealed, carried across runs. */
  head: ChainHead | null;
  /** When retention is next due (epoch ms, workflow time); absent: after the first interval. */
  nextRetentionAt?: number;
  /** Passes before continuing as new (default SEALS_PER_RUN; tests give fewer). */
  passesPerRun?: number;
}

export interface SealResult {
  batches: number;
  records: number;
  /** Records left in the inbox (the time budget ran out): seal again at once. */
  more: boolean;
  head: ChainHead | null;
}

export const auditSealerWorkflowId = (taskQueue: string): string => `audit-sealer-${taskQueue}`;

/** Passes of the loop per workflow run before it continues as new (a bounded history). */
export const SEALS_PER_RUN = 200;
export const RETENTION_EVERY_MS = 24 * 3600_000;
