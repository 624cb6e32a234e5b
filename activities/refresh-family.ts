// Activities of the RefreshFamily workflow: the MongoDB projection that the
// api reads (refresh token documents, the grant's revocation).
import type { FamilyEnd, RotateResult, Rotation } from '../lib/domain/refresh-family.js';
import type { Store } from '../lib/store/db.js';
import { revokeGrant } from '../lib/store/grants.js';
import { claimRotation, deleteFamilyTokens } from '../lib/store/refresh-rotations.js';
import { expireFamilyTokens, findRefreshToken, revokeFamilyTokens } from '../lib/store/refresh-tokens.js';

export function createRefreshFamilyActivities(store: Store) {
  return {
    /**
     * The family ended: a revocation revokes the grant first (every token of
     * it, known to the family or not, is refused from then on), then the
     * tokens the family knows are deleted by hash, with every successor their
     * rotation claims lead to. Idempotent.
     */
    async endFamily(end: FamilyEnd): Promise<void> {
      if (end.outcome === 'revoked') await revokeGrant(store, end.grantId, end.reason);
      await deleteFamilyTokens(store, end.hashes);
    },

    /**
     * A `rotate` update from an api of a version that rotated through the
     * family (during a rolling upgrade): decided by the same rotation claims
     * as today's api, so the two never both rotate one token. That api writes
     * the successor's document itself, as it always did.
     */
    async rotateInStore({ grantId, presentedHash, newHash, retryWindowMs }: Rotation & { grantId: string }): Promise<RotateResult> {
      const presented = await findRefreshToken(store, presentedHash);
      if (!presented || presented.grantId !== grantId) return { status: 'invalid', reason: 'unknown' };
      return claimRotation(store, presented, { newHash, retryWindowMs: retryWindowMs ?? 0, now: new Date(), withSuccessor: false });
    },

    /** A revocation scheduled by a family from before endFamily (its history asks for it). */
    async revokeFamily({ grantId, reason }: { grantId: string; reason: string }): Promise<void> {
      await revokeGrant(store, grantId, reason);
      await revokeFamilyTokens(store, grantId);
    },

    /** An expiry scheduled by a family from before endFamily. */
    async expireFamily({ grantId }: { grantId: string }): Promise<void> {
      await expireFamilyTokens(store, grantId);
    },
  };
}

export type RefreshFamilyActivities = ReturnType<typeof createRefreshFamilyActivities>;
