// Activities of the RefreshFamily workflow: the MongoDB projection that the
// api reads (refresh token documents, the grant's revocation).
import type { Store } from '../lib/store/db.js';
import { revokeGrant } from '../lib/store/grants.js';
import { expireFamilyTokens, revokeFamilyTokens } from '../lib/store/refresh-tokens.js';

export function createRefreshFamilyActivities(store: Store) {
  return {
    async revokeFamily({ grantId, reason }: { grantId: string; reason: string }): Promise<void> {
      await revokeGrant(store, grantId, reason);
      await revokeFamilyTokens(store, grantId);
    },

    async expireFamily({ grantId }: { grantId: string }): Promise<void> {
      await expireFamilyTokens(store, grantId);
    },
  };
}

export type RefreshFamilyActivities = ReturnType<typeof createRefreshFamilyActivities>;
