// The client of BackchannelLogout workflows (one per ended session): the only
// code that starts one.
import { logoutWorkflowId, type BackchannelLogoutInput } from '../model/backchannel-logout.js';
import type { backchannelLogout } from '../../workflows/backchannel-logout.js';
import { startFlow, type FlowClient } from './flow-client.js';

/** Starts the logout of one session at the clients it signed into; the logout of a session already under way is left to run. */
export async function startBackchannelLogout(flows: FlowClient, input: BackchannelLogoutInput): Promise<void> {
  await startFlow<typeof backchannelLogout>(flows, 'backchannelLogout', {
    workflowId: logoutWorkflowId(input.sid),
    args: [input],
    attributes: { userId: input.userId, state: 'sending' },
  });
}
