// Activities of the RefreshFamily workflow: the MongoDB projection that the
// api reads (refresh token documents, the grant's revocation).
import type { FamilyEnd } from '../lib/domain/refresh-family.js';
import type { Store } from '../lib/store/db.js';
import { revokeGrant } from '../lib/store/grants.js';
import { deleteRefreshTokens, expireFamilyTokens, revokeFamilyTokens } from '../lib/store/refresh-tokens.js';

export function createRefreshFamilyActivities(store: Store) {
  return {
    /**
     * The family ended: a revocation revokes the grant first (every token of
     * it, known to the family or not, is refused from then on), then the
     * tokens the family knows are deleted by hash. Idempotent.
     */
    async endFamily(end: FamilyEnd): Promise<void> {
      if (end.outcome === 'revoked') await revokeGrant(store, end.grantId, end.reason);
      await deleteRefreshTokens(store, end.hashes);
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
