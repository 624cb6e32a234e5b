// The projection of refresh families that the api reads without asking
// Temporal: one document per refresh token (by hash), written by the
// RefreshFamily workflow's activities (and by the api for a family's first token).
import type { RefreshTokenDoc, RefreshTokenStatus } from '../domain/refresh-family.js';
import { insertManyIfAbsent, type Store } from './db.js';
import { inChunks } from './in-chunks.js';

/** Updates or deletes in flight at once: a thousand concurrent updates left FerretDB v1 (SQLite) hanging, every one waiting. */
const PARALLEL_WRITES = 16;

export type { RefreshTokenDoc, RefreshTokenStatus };

export function findRefreshToken(store: Store, hash: string): Promise<RefreshTokenDoc | null> {
  return store.refreshTokens.findOne({ _id: hash });
}

/** A family's first token, written by the api before the family is started. */
export async function recordFirstRefreshToken(store: Store, doc: RefreshTokenDoc): Promise<void> {
  await store.refreshTokens.insertOne(doc);
}

/** The token a rotation makes current: the presented one's family, a new hash. */
const rotated = (previous: RefreshTokenDoc, newHash: string): RefreshTokenDoc => ({ ...previous, _id: newHash, status: 'current', issuedAt: new Date() });

/**
 * Records a rotation the family workflow accepted: the new token is current,
 * the presented one superseded. A retry also names the successor it replaced
 * (`replacedHash`): superseded too, so that its later use is reuse wherever
 * the projection is read, even when the family no longer knows it.
 */
export async function recordRotation(store: Store, previous: RefreshTokenDoc, newHash: string, replacedHash?: string): Promise<void> {
  await store.refreshTokens.insertOne(rotated(previous, newHash));
  const superseded = replacedHash === undefined ? [previous._id] : [previous._id, replacedHash];
  await Promise.all(superseded.map((_id) => store.refreshTokens.updateOne({ _id }, { $set: { status: 'superseded' } })));
}

/** recordFirstRefreshToken for many families at once (bulk loads); tokens already recorded are left as they are. */
export async function recordFirstRefreshTokens(store: Store, docs: RefreshTokenDoc[]): Promise<void> {
  await insertManyIfAbsent(store.refreshTokens, docs);
}

/**
 * recordRotation for many families at once (bulk loads): the new tokens in one
 * insertMany, the superseded ones updated by `_id` one by one (FerretDB v1
 * would scan the whole collection for an `_id: {$in}` filter).
 */
export async function recordRotations(store: Store, rotations: { previous: RefreshTokenDoc; newHash: string }[]): Promise<void> {
  await insertManyIfAbsent(
    store.refreshTokens,
    rotations.map((r) => rotated(r.previous, r.newHash)),
  );
  await inChunks(rotations, PARALLEL_WRITES, (r) => store.refreshTokens.updateOne({ _id: r.previous._id }, { $set: { status: 'superseded' } }));
}

/**
 * Deletes tokens by hash, one `_id` lookup each (FerretDB v1 scans the whole
 * collection for any other filter). A deleted token is unknown to the api:
 * refused like any wrong value.
 */
export async function deleteRefreshTokens(store: Store, hashes: string[]): Promise<void> {
  await inChunks(hashes, PARALLEL_WRITES, (_id) => store.refreshTokens.deleteOne({ _id }));
}

/**
 * The family was revoked: every token of the grant is. Only for a revocation
 * a family scheduled before families deleted their own tokens: a scan on
 * FerretDB v1.
 */
export async function revokeFamilyTokens(store: Store, grantId: string): Promise<void> {
  await store.refreshTokens.updateMany({ grantId }, { $set: { status: 'revoked' } });
}

/** The family reached its absolute expiry: its current token expires. Only for an expiry scheduled before families deleted their own tokens (a scan). */
export async function expireFamilyTokens(store: Store, grantId: string): Promise<void> {
  await store.refreshTokens.updateMany({ grantId, status: 'current' }, { $set: { status: 'expired' } });
}
