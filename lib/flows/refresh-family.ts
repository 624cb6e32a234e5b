// The client of RefreshFamily workflows (one per grant with refresh tokens):
// the only code that starts a family or revokes it (rotation is decided in
// MongoDB: lib/store/refresh-rotations.ts). A family that has ended (expired,
// revoked) answers `{ ended: true }`.
import { familyWorkflowId, type RefreshFamilyInput, type Revocation } from '../model/refresh-family.js';
import { revokeFamilySignal, revokeFamilyUpdate } from '../temporal/flow-messages.js';
import type { refreshFamily } from '../../workflows/refresh-family.js';
import { startFlow, whileRunning, type FlowClient, type WhileRunning } from './flow-client.js';

/** Starts a grant's family; a family already started for the grant (a retried start) is left as it is. */
export async function startRefreshFamily(flows: FlowClient, family: RefreshFamilyInput): Promise<void> {
  await startFlow<typeof refreshFamily>(flows, 'refreshFamily', {
    workflowId: familyWorkflowId(family.grantId),
    args: [family],
    attributes: { clientId: family.clientId, userId: family.userId, state: 'active' },
  });
}

const family = (flows: FlowClient, grantId: string) => flows.client.workflow.getHandle<typeof refreshFamily>(familyWorkflowId(grantId));

/** Revokes the family through its update: it has revoked the grant and deleted its tokens when this resolves. */
export function revokeRefreshFamily(flows: FlowClient, grantId: string, revocation: Revocation): Promise<WhileRunning<{ revoked: boolean }>> {
  return whileRunning(flows, () => family(flows, grantId).executeUpdate(revokeFamilyUpdate, { args: [revocation] }));
}

/**
 * Tells the family to end. A signal is durable once Temporal accepts it and
 * does not wait for the worker, so a revocation never hangs on it.
 */
export function endRefreshFamily(flows: FlowClient, grantId: string, reason: string): Promise<WhileRunning<void>> {
  return whileRunning(flows, () => family(flows, grantId).signal(revokeFamilySignal, { reason }));
}
