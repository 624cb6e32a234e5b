// Activities of the StepUpChallenge workflow: the MongoDB projection the api
// reads (challenge status, code hash → verify result) and the audit record of
// every outcome. All idempotent (activities may be retried).
import type { StepUpMethod, StepUpState } from '../lib/model/step-up-challenge.js';
import type { Store } from '../lib/store/db.js';
import { recordStepUpAudit, recordStepUpCode, recordStepUpCodeStatus, recordStepUpState } from '../lib/store/step-up.js';

export function createStepUpChallengeActivities(store: Store) {
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
    /** One audit record per outcome: client, user, action, method, result, time. */
    async recordStepUpAudit(a: { challengeId: string; userId: string | null; method: StepUpMethod | null; result: StepUpState; at: number }): Promise<void> {
      await recordStepUpAudit(store, a);
    },
  };
}

export type StepUpChallengeActivities = ReturnType<typeof createStepUpChallengeActivities>;
