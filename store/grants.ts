// Grants: what one authorization (a code exchange, later a device approval)
// gave a client. Every token carries its grant id; revoking the grant makes all
// of them unusable. This document is the projection resource endpoints read.
import { isDuplicateKeyError, type Store } from './db.js';

export interface GrantDoc {
  _id: string;
  clientId: string;
  userId: string;
  scope: string[];
  sid: string | null;
  /** How the user authenticated for this grant: refreshed tokens carry it on. */
  authTime?: Date;
  amr?: string[];
  acr?: string;
  /** Access tokens revoked one by one (RFC 7009), by jti. */
  revokedJtis?: string[];
  createdAt: Date;
  revokedAt: Date | null;
  revokedReason: string | null;
}

/** Records the grant unless it exists (a reused code may have revoked it first). */
export async function openGrant(store: Store, grant: Omit<GrantDoc, 'createdAt' | 'revokedAt' | 'revokedReason'>): Promise<GrantDoc> {
  const doc: GrantDoc = { ...grant, createdAt: new Date(), revokedAt: null, revokedReason: null };
  try {
    await store.grants.insertOne(doc);
    return doc;
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    return (await store.grants.findOne({ _id: grant._id }))!;
  }
}

/** Revokes a grant; works before the grant exists too (the code-reuse race). */
export async function revokeGrant(store: Store, grantId: string, reason: string): Promise<void> {
  const revoked = { revokedAt: new Date(), revokedReason: reason };
  const existing = await store.grants.findOne({ _id: grantId }, { projection: { revokedAt: 1 } });
  if (existing?.revokedAt) return;
  if (existing) {
    await updateUntil(store, grantId, { $set: revoked }, (g) => !!g?.revokedAt);
    return;
  }
  // Absent: leave a revoked placeholder that openGrant will find instead of creating the grant.
  try {
    await store.grants.insertOne({ _id: grantId, ...revoked } as GrantDoc);
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    await store.grants.updateOne({ _id: grantId }, { $set: revoked });
  }
}

/** A grant that exists and is not revoked. */
function isLive(grant: Pick<GrantDoc, 'revokedAt' | 'clientId'> | null): boolean {
  // Truthiness, not `=== null`: FerretDB v1 may drop null fields.
  // A revoked placeholder (code reuse before the grant existed) has no clientId.
  return grant !== null && !grant.revokedAt && grant.clientId !== undefined;
}

/** Whether the grant exists and is not revoked (what a refresh token's use depends on, beside its family). */
export async function isGrantActive(store: Store, grantId: string): Promise<boolean> {
  return isLive(await store.grants.findOne({ _id: grantId }, { projection: { revokedAt: 1, clientId: 1 } }));
}

/** Whether an access token (its grant and jti) may still be used. */
export async function isAccessTokenActive(store: Store, grantId: string, jti: string): Promise<boolean> {
  const grant = await store.grants.findOne({ _id: grantId }, { projection: { revokedAt: 1, clientId: 1, revokedJtis: 1 } });
  return grant !== null && isLive(grant) && !grant.revokedJtis?.includes(jti);
}

/**
 * FerretDB v1 applies an update by rewriting the whole document it read, so two
 * concurrent updates of one grant (revoke the grant, revoke a jti) can undo each
 * other. Each writer therefore checks that its change stuck, and writes again if not.
 */
async function updateUntil(store: Store, grantId: string, update: Parameters<Store['grants']['updateOne']>[1], done: (g: GrantDoc | null) => boolean): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    await store.grants.updateOne({ _id: grantId }, update);
    if (done(await store.grants.findOne({ _id: grantId }))) return;
  }
  throw new Error(`could not record the revocation of grant ${grantId}`);
}

export async function revokeAccessToken(store: Store, grantId: string, jti: string): Promise<void> {
  await updateUntil(store, grantId, { $addToSet: { revokedJtis: jti } }, (g) => !g || !!g.revokedJtis?.includes(jti));
}
