// AUDIT_RETENTION_DAYS: deletes sealed batches whose records are all older
// than the retention, and keeps the rest of the chain verifiable: a signed
// checkpoint (the first batch kept and the hash it follows) is written first,
// so verification starts there; then the old batches, their records and index
// documents go. The newest batch is always kept (the chain's head stays).
import type { JWTPayload } from 'jose';
import type { Signer } from '../keys/signer.js';
import { currentDate, currentTimeMs } from '../runtime/clock.js';
import { deleteBatch, deleteSealed, findBatch, positionOf, readMeta, writeMeta } from '../store/audit-records.js';
import type { Store } from '../store/db.js';
import type { AuditTrail } from './audit-trail.js';
import { CHECKPOINT_TYP, type CheckpointClaims } from './audit-chain.js';
import { deleteIndexDocs } from '../store/audit-index.js';
import { firstBatchSince } from './audit-verify.js';

const DAY_MS = 86_400_000;

export interface RetentionDeps {
  store: Store;
  signer: Signer;
  audit: Pick<AuditTrail, 'record'>;
}

export async function applyRetention(deps: RetentionDeps, retentionDays: number, heartbeat: () => void = () => {}): Promise<{ deletedBatches: number }> {
  const { store } = deps;
  const head = await readMeta(store, 'head');
  if (!head || retentionDays <= 0) return { deletedBatches: 0 };
  const checkpoint = await readMeta(store, 'checkpoint');
  const start = checkpoint?.seq ?? 0;
  const cutoff = new Date(currentTimeMs() - retentionDays * DAY_MS);
  const firstKept = Math.min(await firstBatchSince(store, start, head.seq, cutoff), head.seq);
  if (firstKept <= start) return { deletedBatches: 0 };
  const kept = await findBatch(store, firstKept);
  if (!kept) throw new Error(`audit retention: batch ${firstKept} is missing; run keyflow audit verify`);
  const at = currentDate();
  const claims: CheckpointClaims = { seq: firstKept, prev: kept.prev, at: at.toISOString() };
  const jws = await deps.signer.sign(claims as unknown as JWTPayload, { alg: 'RS256', typ: CHECKPOINT_TYP });
  await writeMeta(store, { _id: 'checkpoint', seq: firstKept, hash: kept.prev, jws, at });
  for (let seq = start; seq < firstKept; seq++) {
    const batch = await findBatch(store, seq);
    if (batch) {
      await deleteIndexDocs(store, batch.indexed ?? []);
      await deleteSealed(
        store,
        Array.from({ length: batch.count }, (_, idx) => positionOf(seq, idx)),
      );
      await deleteBatch(store, seq);
    }
    heartbeat();
  }
  await deps.audit.record('audit.retention', { actor: { type: 'system' }, data: { deleted_batches: firstKept - start, first_batch: firstKept } });
  return { deletedBatches: firstKept - start };
}
