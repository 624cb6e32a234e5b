// Activities of the RefreshFamily workflow: the MongoDB projection that the
// api reads (refresh token documents, the grant's revocation).
import type { Store } from '../store/db.js';
import { revokeGrant } from '../store/grants.js';
import { refreshTokens } from '../store/refresh-tokens.js';

export function createRefreshFamilyActivities(store: Store) {
  return {
    /** The presented token is superseded; the new one is current. Idempotent (activities may be retried). */
    async recordRotation(a: { grantId: string; clientId: string; userId: string; scope: string[]; oldHash: string; newHash: string; expiresAt: number }): Promise<void> {
      const coll = refreshTokens(store);
      await coll.updateOne(
        { _id: a.newHash },
        { $set: { grantId: a.grantId, clientId: a.clientId, userId: a.userId, scope: a.scope, status: 'current', issuedAt: new Date(), expiresAt: new Date(a.expiresAt) } },
        { upsert: true },
      );
      await coll.updateOne({ _id: a.oldHash }, { $set: { status: 'superseded' } });
    },

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
