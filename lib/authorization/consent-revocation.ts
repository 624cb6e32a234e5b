// A user removes a client's access (the connected apps page): what they
// allowed the client is forgotten, so the client must ask again, and every
// grant the user gave it is revoked with its refresh family, so its tokens
// stop at once; recorded as `consent.revoked`.
import type { AuditActor } from '../model/audit-events.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import { deleteConsent } from '../store/consents.js';
import { revokeUserClientGrants, type GrantRevocationDeps } from '../grants/revocation.js';

export interface ConsentRevocationDeps extends GrantRevocationDeps {
  audit: Pick<AuditTrail, 'record'>;
}

/** Removes `clientId`'s access to `userId`; false when the user had not allowed it (nothing done, nothing recorded). */
export async function removeClientAccess(deps: ConsentRevocationDeps, userId: string, clientId: string, actor: AuditActor): Promise<boolean> {
  if (!(await deleteConsent(deps.store, userId, clientId))) return false;
  const { grants } = await revokeUserClientGrants(deps, userId, clientId);
  await deps.audit.record('consent.revoked', { actor, subject: { userId, clientId }, data: { client_id: clientId, grants } });
  return true;
}
