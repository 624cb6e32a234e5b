// Records of back-channel logout deliveries (`logout_deliveries`): one per
// logout token sent, kept LOGOUT_DELIVERY_RETENTION_MS (then purged by
// housekeeping, like every expiring collection).
import type { LogoutDelivery } from '../model/backchannel-logout.js';
import { newId } from '../security/secrets.js';
import type { Store } from './db.js';
import { currentDate } from '../runtime/clock.js';

/** How long a delivery record is kept. */
const LOGOUT_DELIVERY_RETENTION_MS = 30 * 24 * 3600_000;

export async function recordLogoutDelivery(store: Store, delivery: { sid: string; userId: string; outcome: LogoutDelivery }): Promise<void> {
  const at = currentDate();
  await store.logoutDeliveries.insertOne({
    _id: newId(),
    sid: delivery.sid,
    userId: delivery.userId,
    ...delivery.outcome,
    at,
    expiresAt: new Date(at.getTime() + LOGOUT_DELIVERY_RETENTION_MS),
  });
}
