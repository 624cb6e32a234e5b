// The DomainVerification flow's client: the only code that starts a domain's
// flow, asks it to check now, and cancels it when the domain is deleted.
// The messages are those the workflow handles (lib/temporal/flow-messages.ts).
import { domainWorkflowId, type DomainVerificationInput } from '../model/custom-domains.js';
import { cancelDomainSignal, verifyDomainNowSignal } from '../temporal/flow-messages.js';
import type { domainVerification } from '../../workflows/domain-verification.js';
import { flowSearchAttributes } from '../temporal/search-attributes.js';
import { bounded, startFlow, whileRunning, type FlowClient, type WhileRunning } from './flow-client.js';

/** Starts the checks of a newly added domain. */
export async function startDomainVerification(flows: FlowClient, input: DomainVerificationInput): Promise<void> {
  await startFlow<typeof domainVerification>(flows, 'domainVerification', {
    workflowId: domainWorkflowId(input.domainId),
    args: [input],
    attributes: { userId: input.userId, state: 'pending' },
  });
}

/**
 * Checks now: signals the running flow, or starts a new one (a fresh deadline)
 * when the last one expired — one Temporal call either way.
 */
export async function verifyDomainNow(flows: FlowClient, input: DomainVerificationInput): Promise<void> {
  await bounded(flows, () =>
    flows.client.workflow.signalWithStart<typeof domainVerification, []>('domainVerification', {
      workflowId: domainWorkflowId(input.domainId),
      taskQueue: flows.taskQueue,
      args: [input],
      signal: verifyDomainNowSignal,
      signalArgs: [],
      typedSearchAttributes: flowSearchAttributes({ userId: input.userId, state: 'pending' }),
    }),
  );
}

/** Ends the domain's flow (the domain was deleted); `{ended: true}` when it had already ended. */
export function cancelDomainVerification(flows: FlowClient, domainId: string): Promise<WhileRunning<void>> {
  return whileRunning(flows, () => flows.client.workflow.getHandle(domainWorkflowId(domainId)).signal(cancelDomainSignal));
}
