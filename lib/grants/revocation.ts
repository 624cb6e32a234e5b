// Revoking grants: the grant document (which every access token of the grant
// is checked against) and the grant's RefreshFamily workflow (which decides
// every rotation). Both must go: a family left running would keep rotating
// refresh tokens of a grant the projection says is revoked. One grant (a
// replayed code, a revoked refresh token), or every grant of a deleted client
// or user.
import pLimit from 'p-limit';
import type { Store } from '../store/db.js';
import { deleteConsents } from '../store/consents.js';
import { liveGrantIds, revokeGrant } from '../store/grants.js';
import type { FlowClient } from '../flows/flow-client.js';
import { endRefreshFamily, revokeRefreshFamily } from '../flows/refresh-family.js';

export interface GrantRevocationDeps {
  store: Store;
  flows: FlowClient;
}

/**
 * Revokes a grant: its document first (its access tokens stop at once), then
 * its refresh family (a signal: it does not wait for the worker; the refresh
 * grant checks the grant document as well, so the family's own bookkeeping
 * may lag without a refresh token working meanwhile). False when the grant
 * was revoked already.
 */
export async function revokeGrantAndFamily(deps: GrantRevocationDeps, grantId: string, reason: string): Promise<boolean> {
  const revoked = await revokeGrant(deps.store, grantId, reason);
  await endRefreshFamily(deps.flows, grantId, reason);
  return revoked;
}

/**
 * A refresh token came back after its rotation: the grant is revoked in
 * MongoDB (durable: every token of it is refused from then on, whatever
 * happens next), then its family is told. A family Temporal cannot reach now
 * is told by the next refresh of the grant (refused, as the grant is revoked),
 * and ends at its expiry regardless; the client's answer does not wait for it.
 */
export async function revokeReusedGrant(deps: GrantRevocationDeps, grantId: string): Promise<void> {
  await revokeGrant(deps.store, grantId, 'refresh token reused');
  await endRefreshFamily(deps.flows, grantId, 'refresh token reused').catch(() => undefined);
}

/** Grants handled at once when a client or user goes (each a MongoDB update, then a Temporal signal). */
const PARALLEL_REVOCATIONS = 8;

/** `each` over `ids`, at most PARALLEL_REVOCATIONS in flight (p-limit); every outcome, failures included. */
function eachSettled(ids: string[], each: (id: string) => Promise<unknown>): Promise<PromiseSettledResult<unknown>[]> {
  const limit = pLimit(PARALLEL_REVOCATIONS);
  return Promise.allSettled(ids.map((id) => limit(() => each(id))));
}

/** What a bulk revocation did: grants revoked, and families Temporal could not be told about (their refresh tokens are refused all the same). */
export interface BulkRevocation {
  grants: number;
  familiesUnreached: number;
}

/**
 * Revokes every live grant of a client or a user: all grant documents first
 * (their tokens stop at once), then each family is told. A family Temporal
 * cannot reach now is counted, not fatal: the refresh grant refuses a revoked
 * grant's tokens and tells its family then.
 */
async function revokeGrantsOf(
  deps: GrantRevocationDeps,
  owner: { clientId: string } | { userId: string } | { userId: string; clientId: string },
  reason: string,
): Promise<BulkRevocation> {
  const ids = await liveGrantIds(deps.store, owner);
  const stored = await eachSettled(ids, (id) => revokeGrant(deps.store, id, reason));
  const failed = stored.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  const told = await eachSettled(ids, (id) => endRefreshFamily(deps.flows, id, reason));
  return { grants: ids.length, familiesUnreached: told.filter((r) => r.status === 'rejected').length };
}

/**
 * A client was deleted (or deactivated, `reason` says which): every grant it held is revoked with its refresh family,
 * and the consents given to it are forgotten. Its tokens are refused from
 * then on (the bearer, introspection and refresh checks also refuse the tokens
 * of a client that no longer exists).
 */
export async function revokeClientGrants(deps: GrantRevocationDeps, clientId: string, reason = 'client deleted'): Promise<BulkRevocation> {
  const revoked = await revokeGrantsOf(deps, { clientId }, reason);
  await deleteConsents(deps.store, { clientId });
  return revoked;
}

/**
 * A client's machine access changed: the grants of its client_credentials
 * tokens are revoked (they have no refresh family), so that its tokens stop
 * at once; its users' grants are left alone.
 */
export async function revokeMachineGrants(deps: GrantRevocationDeps, clientId: string): Promise<BulkRevocation> {
  const ids = await liveGrantIds(deps.store, { clientId, machine: true });
  await Promise.all(ids.map((id) => revokeGrant(deps.store, id, 'machine access changed')));
  return { grants: ids.length, familiesUnreached: 0 };
}

/** A user removed a client's access (their consent): the user's grants to that client are revoked with their refresh families. */
export function revokeUserClientGrants(deps: GrantRevocationDeps, userId: string, clientId: string, reason = 'access removed'): Promise<BulkRevocation> {
  return revokeGrantsOf(deps, { userId, clientId }, reason);
}

/** A user was deleted (deleteUserAccount), disabled or had their tokens revoked: every grant of the user is revoked with its refresh family. */
export function revokeUserGrants(deps: GrantRevocationDeps, userId: string, reason = 'user deleted'): Promise<BulkRevocation> {
  return revokeGrantsOf(deps, { userId }, reason);
}

/**
 * Revokes a grant through its family's `revoke` update, which is serial with
 * rotations (RFC 7009 revocation of a refresh token), then its document; a
 * family that has ended is revoked in MongoDB alone.
 */
export async function revokeFamilyThenGrant(deps: GrantRevocationDeps, grantId: string, reason: string): Promise<void> {
  await revokeRefreshFamily(deps.flows, grantId, { reason });
  await revokeGrant(deps.store, grantId, reason);
}
