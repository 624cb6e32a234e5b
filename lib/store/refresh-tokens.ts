// Refresh token documents: one per token (by hash), which the api reads
// without asking Temporal. The api writes a family's first token and each
// successor (refresh-rotations.ts, where rotation is decided); the
// RefreshFamily workflow's activities delete them when the family ends.
// A token is superseded when its rotation claim exists.
import { rotationClaimId, type RefreshRotationDoc, type RefreshTokenDoc } from '../model/refresh-family.js';
import { insertManyIfAbsent, type Store } from './db.js';
import { currentDate } from '../runtime/clock.js';

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
export async function recordRotations(store: Store, rotations: { previous: RefreshTokenDoc; newHash: string }[], now = currentDate()): Promise<void> {
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
    rotations.map(({ previous, newHash }) => ({ ...previous, _id: newHash, issuedAt: now })),
  );
}
