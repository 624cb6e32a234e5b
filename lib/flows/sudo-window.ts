// The SudoWindow flow's client: the only code that starts a window's flow and
// revokes it (an update, or a signal at sign-out), with the messages the
// workflow handles (lib/temporal/flow-messages.ts).
import type { SudoRevocation, SudoRevokeResult, SudoWindowInput } from '../model/sudo-window.js';
import { revokeSudoSignal, revokeSudoUpdate } from '../temporal/flow-messages.js';
import type { sudoWindow } from '../../workflows/sudo-window.js';
import { startFlow, whileRunning, type FlowClient, type WhileRunning } from './flow-client.js';

/** Starts the window's flow; a flow of an earlier opening of the same window is terminated (its timer restarts from now). */
export async function startSudoWindowFlow(flows: FlowClient, input: SudoWindowInput): Promise<void> {
  await startFlow<typeof sudoWindow>(flows, 'sudoWindow', {
    workflowId: input.windowId,
    args: [input],
    attributes: { clientId: input.clientId, userId: input.userId, state: 'active' },
    options: { workflowIdConflictPolicy: 'TERMINATE_EXISTING' },
  });
}

/** Ends the window; answers once the flow has written the end into the projection. */
export function revokeSudoWindowFlow(flows: FlowClient, windowId: string, revocation: SudoRevocation): Promise<WhileRunning<SudoRevokeResult>> {
  return whileRunning(flows, () => flows.client.workflow.getHandle(windowId).executeUpdate(revokeSudoUpdate, { args: [revocation] }));
}

/** Ends the window without waiting for it (sign-out ends many at once). */
export function signalSudoWindowRevocation(flows: FlowClient, windowId: string, revocation: SudoRevocation): Promise<WhileRunning<void>> {
  return whileRunning(flows, () => flows.client.workflow.getHandle(windowId).signal(revokeSudoSignal, revocation));
}
