// The StepUpChallenge flow's client: the only code that starts a challenge's
// flow and drives its transitions (confirm, deny, fail, redeem). Every
// transition is an update the flow decides; an ended flow (expired, answered)
// is `{ ended: true }`. The messages are those the workflow handles
// (lib/temporal/flow-messages.ts).
import type { UpdateDefinition } from '@temporalio/common';
import {
  stepUpWorkflowId,
  type StepUpAnswer,
  type StepUpChallengeInput,
  type StepUpConfirmation,
  type StepUpDenial,
  type StepUpFailure,
  type StepUpRedeemResult,
  type StepUpRedemption,
  type StepUpTransition,
} from '../model/step-up-challenge.js';
import type { stepUpChallenge } from '../../workflows/step-up-challenge.js';
import { confirmStepUpUpdate, denyStepUpUpdate, failStepUpUpdate, redeemStepUpUpdate } from '../temporal/flow-messages.js';
import { startFlow, whileRunning, type FlowClient, type WhileRunning } from './flow-client.js';

/** Starts the flow of a new challenge. Its id is fresh, so a flow already running under it is an error. */
export async function startStepUpFlow(flows: FlowClient, input: StepUpChallengeInput): Promise<void> {
  const { started } = await startFlow<typeof stepUpChallenge>(flows, 'stepUpChallenge', {
    workflowId: stepUpWorkflowId(input.challengeId),
    args: [input],
    attributes: { clientId: input.clientId, state: 'created' },
  });
  if (!started) throw new Error('a step-up flow already runs for this challenge');
}

/** A valid factor: the challenge is consumed and the code (its hash) issued. */
export function confirmStepUpFlow(flows: FlowClient, challengeId: string, confirmation: StepUpConfirmation): Promise<WhileRunning<StepUpTransition>> {
  return update(flows, challengeId, confirmStepUpUpdate, confirmation);
}

/** The user denied, has no factor, or an error occurred: the challenge ends. */
export function denyStepUpFlow(flows: FlowClient, challengeId: string, denial: StepUpDenial): Promise<WhileRunning<StepUpAnswer>> {
  return update(flows, challengeId, denyStepUpUpdate, denial);
}

/** A failed factor attempt: the challenge ends. */
export function failStepUpFlow(flows: FlowClient, challengeId: string, failure: StepUpFailure): Promise<WhileRunning<StepUpAnswer>> {
  return update(flows, challengeId, failStepUpUpdate, failure);
}

/** The verify endpoint: the issued code is redeemed once. */
export function redeemStepUpFlow(flows: FlowClient, challengeId: string, redemption: StepUpRedemption): Promise<WhileRunning<StepUpRedeemResult>> {
  return update(flows, challengeId, redeemStepUpUpdate, redemption);
}

function update<R, A>(flows: FlowClient, challengeId: string, definition: UpdateDefinition<R, [A]>, arg: A): Promise<WhileRunning<R>> {
  return whileRunning(flows, () => flows.client.workflow.getHandle(stepUpWorkflowId(challengeId)).executeUpdate(definition, { args: [arg] }));
}
