// StepUpChallenge (workflow id `challenge:<challenge id>`): one per step-up
// 2FA challenge of a client app. States:
//   created → issued (challenge consumed, code issued) → redeemed | code_expired
//   created → denied | failed | error | expired   (challenge consumed, terminal)
// Every transition is an update, decided synchronously at the start of its
// handler, so transitions are serial and each happens once: `confirm` (a valid
// factor: the code's hash is recorded), `deny` (the user denied, has no factor,
// or an error occurred), `fail` (a failed factor attempt), `redeem` (the verify
// endpoint; succeeds once). A timer ends the challenge after its lifetime and
// then the code after its own. Each state is written to the MongoDB projection
// (lib/store/step-up.ts) and recorded in the audit collection and the audit
// trail by activities; an answer carries its request (IP, user agent, request
// id) for the trail's record. Only the code's SHA-256 enters the history:
// never the 2FA code, a TOTP code or a backup code.
import { allHandlersFinished, condition, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { StepUpChallengeActivities } from '../activities/step-up-challenge.js';
import type { AuditRequest } from '../lib/model/audit-events.js';
import type { StepUpAnswer, StepUpChallengeInput, StepUpMethod, StepUpRedeemResult, StepUpState, StepUpTransition } from '../lib/model/step-up-challenge.js';
import { confirmStepUpUpdate, denyStepUpUpdate, failStepUpUpdate, redeemStepUpUpdate, stepUpStateQuery } from '../lib/temporal/flow-messages.js';
import { SearchAttributes } from '../lib/temporal/search-attributes.js';

const { recordStepUpState, recordStepUpCode, recordStepUpAudit } = proxyActivities<StepUpChallengeActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { maximumAttempts: 10 },
});

export async function stepUpChallenge(input: StepUpChallengeInput): Promise<StepUpState> {
  const flow: {
    state: StepUpState;
    /** A confirm whose code is being projected: the challenge is taken, not yet issued. */
    confirming: boolean;
    userId: string | null;
    method: StepUpMethod | null;
    codeHash: string | null;
    codeExpiresAt: number;
    /** The request that answered the challenge, for the outcome's audit record (none when it expired). */
    request?: AuditRequest;
  } = {
    state: 'created',
    confirming: false,
    userId: null,
    method: null,
    codeHash: null,
    codeExpiresAt: 0,
  };
  const open = () => flow.state === 'created' && !flow.confirming && Date.now() < input.expiresAt;
  const refused = (): StepUpAnswer => ({ ok: false, state: flow.confirming ? 'issued' : flow.state === 'created' ? 'expired' : flow.state });

  setHandler(stepUpStateQuery, () => ({ state: flow.state, clientId: input.clientId, userId: flow.userId, method: flow.method }));

  setHandler(confirmStepUpUpdate, async (c): Promise<StepUpTransition> => {
    if (!open()) return refused() as StepUpTransition;
    const verifiedAt = Date.now();
    // `issued` only once the code's projection is written: a projection that fails is `error`, never an issued code.
    const issued = { userId: c.userId, method: c.method, codeHash: c.codeHash, codeExpiresAt: verifiedAt + input.codeTtlMs };
    Object.assign(flow, { confirming: true, userId: c.userId, method: c.method, request: c.request });
    try {
      // The projection holds the code's hash before the browser gets the code, so verify finds it.
      await recordStepUpCode({
        challengeId: input.challengeId,
        codeHash: c.codeHash,
        userId: c.userId,
        method: c.method,
        verifiedAt,
        expiresAt: issued.codeExpiresAt,
      });
    } catch {
      Object.assign(flow, { state: 'error', confirming: false });
      return { ok: false, state: 'error' };
    }
    Object.assign(flow, { state: 'issued', confirming: false, ...issued });
    return { ok: true, verifiedAt, codeExpiresAt: flow.codeExpiresAt };
  });
  setHandler(denyStepUpUpdate, ({ userId, reason, request }): StepUpAnswer => {
    if (!open()) return refused();
    Object.assign(flow, { state: reason === 'error' ? 'error' : 'denied', userId: userId ?? flow.userId, request });
    return { ok: true };
  });
  setHandler(failStepUpUpdate, ({ userId, request }): StepUpAnswer => {
    if (!open()) return refused();
    Object.assign(flow, { state: 'failed', userId, request });
    return { ok: true };
  });
  setHandler(redeemStepUpUpdate, ({ codeHash }): StepUpRedeemResult => {
    if (flow.state !== 'issued' || codeHash !== flow.codeHash) return { status: 'refused', state: flow.state };
    if (Date.now() >= flow.codeExpiresAt) return { status: 'refused', state: 'code_expired' };
    flow.state = 'redeemed';
    return { status: 'redeemed' };
  });

  const record = async (state: StepUpState, projection: boolean) => {
    upsertSearchAttributes([{ key: SearchAttributes.state, value: state }, ...(flow.userId ? [{ key: SearchAttributes.userId, value: flow.userId }] : [])]);
    if (projection) await recordStepUpState({ challengeId: input.challengeId, state, userId: flow.userId, method: flow.method, codeHash: flow.codeHash });
    await recordStepUpAudit({
      challengeId: input.challengeId,
      userId: flow.userId,
      method: flow.method,
      result: state,
      at: Date.now(),
      ...(flow.request ? { request: flow.request } : {}),
    });
  };

  // The challenge: confirmed, answered or expired.
  if (!(await condition(() => flow.state !== 'created', Math.max(1, input.expiresAt - Date.now())))) {
    // A confirm that took the challenge just in time ends as it ends, not as expired.
    await condition(() => !flow.confirming);
    if (flow.state === 'created') flow.state = 'expired';
  }
  // `issued` was projected by the confirm handler itself (before the browser got the code).
  const answered = flow.state;
  await record(answered, answered !== 'issued');
  // The code is issued only once confirm answers, so a redeem may arrive while
  // `issued` is being recorded: it is recorded next, not lost.
  if (answered === 'issued') {
    // The code: redeemed once, or expired.
    if (!(await condition(() => flow.state !== 'issued', Math.max(1, flow.codeExpiresAt - Date.now())))) flow.state = 'code_expired';
    await record(flow.state, true);
  }
  await condition(allHandlersFinished);
  return flow.state;
}
