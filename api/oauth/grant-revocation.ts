// Revoking grants: the grant document (which every access token of the grant
// is checked against) and the grant's RefreshFamily workflow (which decides
// every rotation). Both must go: a family left running would keep rotating
// refresh tokens of a grant the projection says is revoked.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Store } from '../../store/db.js';
import { revokeGrant } from '../../store/grants.js';
import { familyWorkflowId, revokeSignal, revokeUpdate } from '../../workflows/refresh-family.js';

export interface GrantRevocationDeps {
  store: Store;
  temporal: Client;
}

/** The workflow has ended (expired, revoked) or never existed: nothing left to end. */
export function isWorkflowGone(err: unknown): boolean {
  return err instanceof WorkflowNotFoundError || /already completed|not found/i.test((err as Error).message);
}

/**
 * Tells a grant's family to end. A signal is durable once Temporal accepts it
 * and does not wait for the worker, so a revocation never hangs on it; the
 * refresh grant checks the grant document as well, so the family's own
 * bookkeeping may lag without a refresh token working meanwhile.
 */
export async function endRefreshFamily(temporal: Client, grantId: string, reason: string): Promise<void> {
  try {
    await temporal.workflow.getHandle(familyWorkflowId(grantId)).signal(revokeSignal, { reason });
  } catch (err) {
    if (!isWorkflowGone(err)) throw err;
  }
}

/** Revokes a grant: its document first (its access tokens stop at once), then its refresh family. */
export async function revokeGrantAndFamily(deps: GrantRevocationDeps, grantId: string, reason: string): Promise<void> {
  await revokeGrant(deps.store, grantId, reason);
  await endRefreshFamily(deps.temporal, grantId, reason);
}

/**
 * Revokes a grant through its family's `revoke` update, which is serial with
 * rotations (RFC 7009 revocation of a refresh token), then its document; a
 * family that has ended is revoked in MongoDB alone.
 */
export async function revokeFamilyThenGrant(deps: GrantRevocationDeps, grantId: string, reason: string): Promise<void> {
  try {
    await deps.temporal.workflow.getHandle(familyWorkflowId(grantId)).executeUpdate(revokeUpdate, { args: [{ reason }] });
  } catch (err) {
    if (!isWorkflowGone(err)) throw err;
  }
  await revokeGrant(deps.store, grantId, reason);
}
