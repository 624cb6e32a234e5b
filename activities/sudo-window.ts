// Activities of the SudoWindow workflow: the end of a window in its MongoDB
// projection (collection `sudo_windows`), and its `sudo.ended` record. Only
// the call that ends the opening records it, so a retried activity does not
// record it twice.
import type { AuditTrail } from '../lib/audit/audit-trail.js';
import type { SudoWindowState } from '../lib/model/sudo-window.js';
import type { Store } from '../lib/store/db.js';
import { recordSudoWindowEnded } from '../lib/store/sudo-windows.js';

export function createSudoWindowActivities(deps: { store: Store; audit: Pick<AuditTrail, 'record'> }) {
  return {
    async endSudoWindow(input: { windowId: string; openingId: string; status: Exclude<SudoWindowState, 'active'> }): Promise<void> {
      const ended = await recordSudoWindowEnded(deps.store, input);
      if (!ended) return;
      // The workflow ends it, at its TTL or on a revocation (the user's request, or the session ending).
      await deps.audit.record('sudo.ended', {
        actor: { type: 'system' },
        subject: { userId: ended.userId, clientId: ended.clientId },
        data: { client_id: ended.clientId, reason: input.status === 'ended' ? 'expired' : 'revoked' },
      });
    },
  };
}

export type SudoWindowActivities = ReturnType<typeof createSudoWindowActivities>;
