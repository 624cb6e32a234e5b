// The DeviceAuthorization flow's client: the only code that starts it, answers
// it (approve, deny) and redeems its approval, with the messages the workflow
// handles (lib/temporal/flow-messages.ts).
import { deviceWorkflowId, type DeviceApproval, type DeviceAuthorizationInput, type RedeemInput, type RedeemResult } from '../model/device-authorization.js';
import { approveDeviceSignal, denyDeviceSignal, redeemDeviceUpdate } from '../temporal/flow-messages.js';
import type { deviceAuthorization } from '../../workflows/device-authorization.js';
import { startFlow, whileRunning, type FlowClient, type WhileRunning } from './flow-client.js';

/** Starts the flow of a new device code. Its hash is fresh, so a flow already running under its id is an error. */
export async function startDeviceFlow(flows: FlowClient, input: DeviceAuthorizationInput): Promise<void> {
  const { started } = await startFlow<typeof deviceAuthorization>(flows, 'deviceAuthorization', {
    workflowId: deviceWorkflowId(input.deviceCodeHash),
    args: [input],
    attributes: { clientId: input.clientId, state: 'pending' },
  });
  if (!started) throw new Error('a device authorization flow already runs for this device code');
}

/** The person allowed the device (a late answer changes nothing in the flow). */
export function approveDeviceFlow(flows: FlowClient, deviceCodeHash: string, approval: DeviceApproval): Promise<WhileRunning<void>> {
  return whileRunning(flows, () => handle(flows, deviceCodeHash).signal(approveDeviceSignal, approval));
}

/** The person denied the device. */
export function denyDeviceFlow(flows: FlowClient, deviceCodeHash: string): Promise<WhileRunning<void>> {
  return whileRunning(flows, () => handle(flows, deviceCodeHash).signal(denyDeviceSignal));
}

/** Hands the approval out, once (with offline_access the flow also starts the refresh family). */
export function redeemDeviceFlow(flows: FlowClient, deviceCodeHash: string, input: RedeemInput): Promise<WhileRunning<RedeemResult>> {
  return whileRunning(flows, () => handle(flows, deviceCodeHash).executeUpdate(redeemDeviceUpdate, { args: [input] }));
}

const handle = (flows: FlowClient, deviceCodeHash: string) => flows.client.workflow.getHandle(deviceWorkflowId(deviceCodeHash));
