// Activities of the StepUpChallenge workflow: the MongoDB projection the api
// reads (challenge status, code hash → verify result), the step_up_audit
// document of every outcome, and the audit trail's record of the outcomes
// that decide the challenge (`stepup.confirmed`, `stepup.denied`). The
// projection and step_up_audit are idempotent (activities may be retried); a
// trail record is written last, so only a retry after it was written (the
// activity's completion lost) would write it twice.
import type { AuditTrail } from '../lib/audit/audit-trail.js';
import type { AuditRequest } from '../lib/model/audit-events.js';
import type { StepUpAuditDoc, StepUpMethod, StepUpState } from '../lib/model/step-up-challenge.js';
import { runInRequest } from '../lib/runtime/request-context.js';
import type { Store } from '../lib/store/db.js';
import { recordStepUpAudit, recordStepUpCode, recordStepUpCodeStatus, recordStepUpState } from '../lib/store/step-up.js';

/** The outcomes that end a challenge unconfirmed, by the reason its record gives. */
const DENIED: Partial<Record<StepUpState, string>> = { denied: 'denied', failed: 'failed', error: 'error', expired: 'expired' };

/** The challenge's outcome in the audit trail: confirmed (the code issued) or denied; the code's own end (redeemed, expired) is not recorded. */
function recordOutcome(audit: Pick<AuditTrail, 'record'>, doc: StepUpAuditDoc): Promise<void> | null {
  const subject = { ...(doc.userId ? { userId: doc.userId } : {}), clientId: doc.clientId };
  // The user answered; an expired challenge was ended by Keyflow's timer.
  const actor = doc.userId && doc.result !== 'expired' ? { type: 'user' as const, userId: doc.userId } : { type: 'system' as const };
  if (doc.result === 'issued')
    return audit.record('stepup.confirmed', { actor, subject, data: { client_id: doc.clientId, action: doc.action, method: doc.method } });
  const reason = DENIED[doc.result];
  if (!reason) return null;
  return audit.record('stepup.denied', { outcome: 'failure', actor, subject, data: { client_id: doc.clientId, action: doc.action, reason } });
}

/** `write()` as part of the browser's request that answered (the trail's record names it), when there was one. */
function inRequest(request: AuditRequest | undefined, write: () => Promise<void> | null): Promise<void> | null {
  if (!request) return write();
  return new Promise<void>((resolve, reject) => runInRequest(request, () => void (write() ?? Promise.resolve()).then(resolve, reject)));
}

export function createStepUpChallengeActivities(deps: { store: Store; audit: Pick<AuditTrail, 'record'> }) {
  const { store } = deps;
  return {
    /** The challenge's new state; with a code hash, the code's status follows (redeemed, expired). */
    async recordStepUpState(a: {
      challengeId: string;
      state: StepUpState;
      userId: string | null;
      method: StepUpMethod | null;
      codeHash: string | null;
    }): Promise<void> {
      await recordStepUpState(store, a.challengeId, a.state, a.userId, a.method);
      if (a.codeHash && (a.state === 'redeemed' || a.state === 'code_expired' || a.state === 'error')) {
        await recordStepUpCodeStatus(store, a.codeHash, a.state === 'redeemed' ? 'redeemed' : 'expired');
      }
    },
    /** A confirmed challenge: the code's projection (the verify result) and the challenge's status. */
    async recordStepUpCode(a: {
      challengeId: string;
      codeHash: string;
      userId: string;
      method: StepUpMethod;
      verifiedAt: number;
      expiresAt: number;
    }): Promise<void> {
      await recordStepUpCode(store, a);
    },
    /** One step_up_audit document per outcome (client, user, action, method, result, time), and the trail's record. */
    async recordStepUpAudit(a: {
      challengeId: string;
      userId: string | null;
      method: StepUpMethod | null;
      result: StepUpState;
      at: number;
      /** The request that answered the challenge (absent for an expiry, and in histories from before it was passed). */
      request?: AuditRequest;
    }): Promise<void> {
      const { request, ...outcome } = a;
      const doc = await recordStepUpAudit(store, outcome);
      await inRequest(request, () => recordOutcome(deps.audit, doc));
    },
  };
}

export type StepUpChallengeActivities = ReturnType<typeof createStepUpChallengeActivities>;
