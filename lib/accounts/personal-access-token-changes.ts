// Making and revoking a personal access token, for the account page and the
// operator CLI alike: the store write and its audit record (`pat.created`,
// `pat.revoked`: the token's public id, never the token). The one place both
// surfaces go through.
import type { AuditTrail } from '../audit/audit-trail.js';
import type { AuditActor } from '../model/audit-events.js';
import type { NewPersonalAccessToken, PersonalAccessTokenDoc } from '../model/personal-access-tokens.js';
import type { Store } from '../store/db.js';
import { createPersonalAccessToken, revokePersonalAccessToken } from '../store/personal-access-tokens.js';

export interface PatChangeDeps {
  store: Store;
  audit: AuditTrail;
}

/** Makes a token for `userId` (scopes already checked: checkedNewToken); the returned `token` is shown once. */
export async function makePersonalAccessToken(
  deps: PatChangeDeps,
  userId: string,
  input: NewPersonalAccessToken,
  actor: AuditActor,
): Promise<{ token: string; doc: PersonalAccessTokenDoc }> {
  const created = await createPersonalAccessToken(deps.store, userId, input);
  const { doc } = created;
  await deps.audit.record('pat.created', {
    actor,
    subject: { userId },
    data: { token_id: doc.id, scopes: doc.scope, expires_at: doc.expiresAt?.toISOString() ?? null },
  });
  return created;
}

/** Revokes one of the user's tokens by its public id; false (nothing recorded) when there is none. */
export async function revokeOwnPersonalAccessToken(deps: PatChangeDeps, userId: string, id: string, actor: AuditActor): Promise<boolean> {
  const revoked = await revokePersonalAccessToken(deps.store, userId, id);
  if (revoked) await deps.audit.record('pat.revoked', { actor, subject: { userId }, data: { token_id: id } });
  return revoked;
}
