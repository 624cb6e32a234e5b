// The activity of the RefreshFamily workflow: the family's end in the MongoDB
// projection that the api reads (the grant's revocation, the tokens deleted).
import type { FamilyEnd } from '../lib/model/refresh-family.js';
import type { Store } from '../lib/store/db.js';
import { revokeGrant } from '../lib/store/grants.js';
import { deleteFamilyTokens } from '../lib/store/refresh-rotations.js';

export function createRefreshFamilyActivities(store: Store) {
  return {
    /**
     * The family ended: a revocation revokes the grant first (every token of
     * it is refused from then on), then the tokens the family knows are
     * deleted by hash, with every successor their rotation claims lead to.
     * Idempotent.
     */
    async endFamily(end: FamilyEnd): Promise<void> {
      if (end.outcome === 'revoked') await revokeGrant(store, end.grantId, end.reason);
      await deleteFamilyTokens(store, end.hashes);
    },
  };
}

export type RefreshFamilyActivities = ReturnType<typeof createRefreshFamilyActivities>;
