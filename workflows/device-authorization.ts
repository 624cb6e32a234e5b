// DeviceAuthorization (RFC 8628; workflow id `device:<first 32 characters of
// the device code's hash>`): one per device_code, waiting on a person. The
// /device page signals `approve` or `deny`; the token endpoint's `redeem`
// update hands the approval out exactly once (updates are serial); the
// expires_in timer ends it otherwise, approved or not. Each state change is
// written to the MongoDB projection that pending polls read, so a poll never
// calls Temporal. Only the device code's SHA-256 enters the history: never the
// device code, the user code or a token.
//
// With offline_access, the token endpoint passes the refresh family's input to
// `redeem`, and the workflow starts the RefreshFamily as an abandoned child:
// the token request then makes one Temporal call, not two. `familyStarted:
// false` tells the api to start it itself (no input, a user mismatch, a
// failed start).
import { allHandlersFinished, condition, ParentClosePolicy, proxyActivities, setHandler, startChild, upsertSearchAttributes } from '@temporalio/workflow';
import type { DeviceAuthorizationActivities } from '../activities/device-authorization.js';
import type { DeviceApproval, DeviceAuthorizationInput, DeviceState, RedeemInput, RedeemResult } from '../lib/model/device-authorization.js';
import { approveDeviceSignal, denyDeviceSignal, deviceStateQuery, redeemDeviceUpdate } from '../lib/temporal/flow-messages.js';
import { flowSearchAttributes, SearchAttributes } from '../lib/temporal/search-attributes.js';
import { familyWorkflowId } from '../lib/model/refresh-family.js';
import type { refreshFamily } from './refresh-family.js';

const TERMINAL: readonly DeviceState[] = ['denied', 'expired', 'redeemed'];

const { recordDeviceState } = proxyActivities<DeviceAuthorizationActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { maximumAttempts: 10 },
});

export async function deviceAuthorization(input: DeviceAuthorizationInput): Promise<DeviceState> {
  // One object, not `let`s: handlers change it, and TypeScript does not track closures' assignments.
  const flow: { state: DeviceState; approval: DeviceApproval | null } = { state: 'pending', approval: null };
  const expired = () => Date.now() >= input.expiresAt;

  setHandler(deviceStateQuery, () => ({ state: flow.state, clientId: input.clientId, userId: flow.approval?.userId ?? null, expiresAt: input.expiresAt }));
  // A late answer (after expiry or another answer) changes nothing.
  setHandler(approveDeviceSignal, (approval) => {
    if (flow.state !== 'pending' || expired()) return;
    flow.state = 'approved';
    flow.approval = approval;
  });
  setHandler(denyDeviceSignal, () => {
    if (flow.state === 'pending' && !expired()) flow.state = 'denied';
  });
  setHandler(redeemDeviceUpdate, async (arg?: RedeemInput): Promise<RedeemResult> => {
    if (flow.state !== 'approved' || !flow.approval) return { status: 'refused', state: flow.state };
    if (expired()) return { status: 'refused', state: 'expired' };
    // Decided before any await: a second redeem, however close, is refused.
    flow.state = 'redeemed';
    const approval = flow.approval;
    const family = arg?.family;
    if (!family || family.userId !== approval.userId) return { status: 'redeemed', approval, familyStarted: false };
    try {
      await startChild<typeof refreshFamily>('refreshFamily', {
        workflowId: familyWorkflowId(family.grantId),
        args: [family],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        typedSearchAttributes: flowSearchAttributes({ clientId: family.clientId, userId: family.userId, state: 'active' }),
      });
      return { status: 'redeemed', approval, familyStarted: true };
    } catch {
      return { status: 'redeemed', approval, familyStarted: false };
    }
  });

  // Project every state change, in order; the expiry timer runs from start to
  // the absolute expiresAt whether the flow is pending or approved.
  let projected: DeviceState = 'pending';
  while (!TERMINAL.includes(projected)) {
    const changed = await condition(() => flow.state !== projected, Math.max(1, input.expiresAt - Date.now()));
    if (!changed) flow.state = 'expired';
    projected = flow.state;
    const approval = flow.approval;
    upsertSearchAttributes([
      { key: SearchAttributes.state, value: projected },
      ...(approval ? [{ key: SearchAttributes.userId, value: approval.userId }] : []),
    ]);
    await recordDeviceState({ deviceCodeHash: input.deviceCodeHash, state: projected, approval });
  }
  await condition(allHandlersFinished);
  return projected;
}
