// Refresh token documents: one per token (by hash), which the api reads
// without asking Temporal. The api writes a family's first token and each
// successor (refresh-rotations.ts, where rotation is decided); the
// RefreshFamily workflow's activities delete them when the family ends.
// `status` stays `current` through a rotation: a token is superseded when its
// rotation claim exists (tokens superseded by a family workflow, before
// rotation moved to MongoDB, say `superseded` in their own document).
import { rotationClaimId, type RefreshRotationDoc, type RefreshTokenDoc, type RefreshTokenStatus } from '../domain/refresh-family.js';
import { insertManyIfAbsent, type Store } from './db.js';

export type { RefreshTokenDoc, RefreshTokenStatus };

export function findRefreshToken(store: Store, hash: string): Promise<RefreshTokenDoc | null> {
  return store.refreshTokens.findOne({ _id: hash });
}

/** A family's first token, written by the api before the family is started. */
export async function recordFirstRefreshToken(store: Store, doc: RefreshTokenDoc): Promise<void> {
  await store.refreshTokens.insertOne(doc);
}

/** recordFirstRefreshToken for many families at once (bulk loads); tokens already recorded are left as they are. */
export async function recordFirstRefreshTokens(store: Store, docs: RefreshTokenDoc[]): Promise<void> {
  await insertManyIfAbsent(store.refreshTokens, docs);
}

/**
 * Rotations of many families at once (bulk loads, such as the scale
 * benchmark's filler): each presented token's rotation claim and its
 * successor, as the token endpoint writes them, in two insertMany.
 */
export async function recordRotations(store: Store, rotations: { previous: RefreshTokenDoc; newHash: string }[], now = new Date()): Promise<void> {
  await insertManyIfAbsent(
    store.refreshRotations,
    rotations.map(({ previous, newHash }): RefreshRotationDoc => ({
      _id: rotationClaimId(previous._id),
      grantId: previous.grantId,
      successor: newHash,
      rotatedAt: now,
      expiresAt: previous.expiresAt,
    })),
  );
  await insertManyIfAbsent(
    store.refreshTokens,
    rotations.map(({ previous, newHash }) => ({ ...previous, _id: newHash, status: 'current' as const, issuedAt: now })),
  );
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
