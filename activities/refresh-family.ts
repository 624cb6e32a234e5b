// Activities of the RefreshFamily workflow: the MongoDB projection that the
// api reads (refresh token documents, the grant's revocation).
import type { Store } from '../store/db.js';
import { revokeGrant } from '../store/grants.js';
import { refreshTokens } from '../store/refresh-tokens.js';

export function createRefreshFamilyActivities(store: Store) {
  return {
    async revokeFamily({ grantId, reason }: { grantId: string; reason: string }): Promise<void> {
      await revokeGrant(store, grantId, reason);
      await refreshTokens(store).updateMany({ grantId }, { $set: { status: 'revoked' } });
    },

    async expireFamily({ grantId }: { grantId: string }): Promise<void> {
      await refreshTokens(store).updateMany({ grantId, status: 'current' }, { $set: { status: 'expired' } });
    },
  };
}

export type RefreshFamilyActivities = ReturnType<typeof createRefreshFamilyActivities>;
