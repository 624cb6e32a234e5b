// Activities of the DeviceAuthorization workflow: the MongoDB projection that
// the token endpoint's polls and the /device page read without asking Temporal.
import type { DeviceApproval, DeviceState } from '../lib/model/device-authorization.js';
import type { Store } from '../lib/store/db.js';
import { recordDeviceState } from '../lib/store/device-codes.js';

export function createDeviceAuthorizationActivities(store: Store) {
  return {
    /** The flow's new state (with the approval once there is one). Idempotent. */
    async recordDeviceState(a: { deviceCodeHash: string; state: DeviceState; approval: DeviceApproval | null }): Promise<void> {
      await recordDeviceState(store, a.deviceCodeHash, a.state, a.approval);
    },
  };
}

export type DeviceAuthorizationActivities = ReturnType<typeof createDeviceAuthorizationActivities>;
