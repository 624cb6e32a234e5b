// Activities of the RefreshFamily workflow: the MongoDB projection that the
// api reads (refresh token documents, the grant's revocation), in the database
// the api named.
import { storeIn, type Store } from '../lib/store/db.js';
import { revokeGrant } from '../lib/store/grants.js';
import { expireFamilyTokens, revokeFamilyTokens } from '../lib/store/refresh-tokens.js';

export function createRefreshFamilyActivities(store: Store) {
  return {
    async revokeFamily({ grantId, reason, database }: { grantId: string; reason: string; database?: string }): Promise<void> {
      const db = storeIn(store, database);
      await revokeGrant(db, grantId, reason);
      await revokeFamilyTokens(db, grantId);
    },

    async expireFamily({ grantId, database }: { grantId: string; database?: string }): Promise<void> {
      await expireFamilyTokens(storeIn(store, database), grantId);
    },
  };
}

export type RefreshFamilyActivities = ReturnType<typeof createRefreshFamilyActivities>;
