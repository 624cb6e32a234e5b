// A user's consent to a client, remembered (lib/store/consents.ts) and audited
// (`consent.granted`) in one step: the consent page of the code flow and the
// device page both allow through here, so each consent has its record.
import type { AuditTrail } from '../audit/audit-trail.js';
import { recordConsent } from '../store/consents.js';
import type { Store } from '../store/db.js';

export interface ConsentGrantDeps {
  store: Store;
  audit: Pick<AuditTrail, 'record'>;
}

/**
 * Remembers that the user allowed `scopes` (added to what they allowed the
 * client before) and the claims asked for one by one, and records it.
 */
export async function grantConsent(deps: ConsentGrantDeps, consent: { userId: string; clientId: string; scopes: string[]; claims?: string[] }): Promise<void> {
  await recordConsent(deps.store, consent.userId, consent.clientId, consent.scopes, consent.claims ?? []);
  await deps.audit.record('consent.granted', {
    actor: { type: 'user', userId: consent.userId },
    subject: { userId: consent.userId, clientId: consent.clientId },
    data: { client_id: consent.clientId, scopes: consent.scopes },
  });
}
