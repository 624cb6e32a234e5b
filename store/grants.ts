// Grants: what one authorization (a code exchange, later a device approval)
// gave a client. Every token carries its grant id; revoking the grant makes all
// of them unusable. This document is the projection resource endpoints read.
import type { Store } from './db.js';

export interface GrantDoc {
  _id: string;
  clientId: string;
  userId: string;
  scope: string[];
  sid: string | null;
  createdAt: Date;
  revokedAt: Date | null;
  revokedReason: string | null;
}

/** Records the grant unless it exists (a reused code may have revoked it first). */
export async function openGrant(store: Store, grant: Omit<GrantDoc, 'createdAt' | 'revokedAt' | 'revokedReason'>): Promise<GrantDoc> {
  const { _id, ...rest } = grant;
  const doc = await store.grants.findOneAndUpdate(
    { _id },
    { $setOnInsert: { ...rest, createdAt: new Date(), revokedAt: null, revokedReason: null } },
    { upsert: true, returnDocument: 'after' },
  );
  return doc!;
}

/** Revokes a grant; works before the grant exists too (the code-reuse race). */
export async function revokeGrant(store: Store, grantId: string, reason: string): Promise<void> {
  const revoked = { revokedAt: new Date(), revokedReason: reason };
  const { matchedCount } = await store.grants.updateOne({ _id: grantId, revokedAt: null }, { $set: revoked });
  // Absent (or already revoked): leave a revoked placeholder that openGrant will not overwrite.
  if (matchedCount === 0) await store.grants.updateOne({ _id: grantId }, { $setOnInsert: revoked }, { upsert: true });
}

export async function isGrantActive(store: Store, grantId: string): Promise<boolean> {
  const grant = await store.grants.findOne({ _id: grantId }, { projection: { revokedAt: 1, clientId: 1 } });
  // Truthiness, not `=== null`: FerretDB v1 may drop null fields written by $setOnInsert.
  // A revoked placeholder (code reuse before the grant existed) has no clientId.
  return grant !== null && !grant.revokedAt && grant.clientId !== undefined;
}
