// DomainVerification (workflow id `domain:<domain id>`): one per added domain,
// until it is verified, its deadline passes or it is deleted. It checks the
// TXT record `_keyflow-challenge.<domain>` at once, then on a timer that
// doubles from the first interval up to the longest; signal `verifyNow`
// checks at once, signal `cancel` (the domain was deleted) ends it. The
// record found, an activity marks the domain verified and emits
// `domain.verified`. At the deadline the domain stays unverified (`expired`).
// The input holds the published TXT value, which is no secret.
import { ActivityFailure, condition, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { DomainVerificationActivities } from '../activities/domain-verification.js';
import { nextInterval, txtRecordName, type DomainVerificationInput, type DomainVerificationState } from '../lib/model/custom-domains.js';
import { cancelDomainSignal, domainStateQuery, verifyDomainNowSignal } from '../lib/temporal/flow-messages.js';
import { SearchAttributes } from '../lib/temporal/search-attributes.js';

// A DNS server that does not answer is retried a little, then counts as "not found yet".
const { checkDomainTxt, recordDomainVerified } = proxyActivities<DomainVerificationActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
});

export async function domainVerification(input: DomainVerificationInput): Promise<DomainVerificationState> {
  let state: DomainVerificationState = 'pending';
  let checkNow = false;
  let cancelled = false;
  const settle = (next: DomainVerificationState) => {
    state = next;
    upsertSearchAttributes([{ key: SearchAttributes.state, value: next }]);
  };
  upsertSearchAttributes([
    { key: SearchAttributes.userId, value: input.userId },
    { key: SearchAttributes.state, value: 'pending' },
  ]);
  setHandler(verifyDomainNowSignal, () => void (checkNow = true));
  setHandler(cancelDomainSignal, () => void (cancelled = true));
  setHandler(domainStateQuery, () => state);

  const found = async (): Promise<boolean> => {
    try {
      return await checkDomainTxt({ name: txtRecordName(input.domain), expected: input.expected });
    } catch (err) {
      if (err instanceof ActivityFailure) return false;
      throw err;
    }
  };

  let interval = input.firstIntervalMs;
  for (;;) {
    checkNow = false; // a signal from now on asks for a check after this one
    if (!cancelled && (await found())) {
      // False when the domain was deleted meanwhile: nothing is verified then.
      settle((await recordDomainVerified({ domainId: input.domainId })) ? 'verified' : 'cancelled');
      return state;
    }
    if (cancelled) break;
    const remaining = input.deadline - Date.now();
    if (remaining <= 0) {
      settle('expired');
      return state;
    }
    const asked = await condition(() => checkNow || cancelled, Math.min(interval, remaining));
    if (cancelled) break;
    if (!asked) interval = nextInterval(interval, input.maxIntervalMs);
  }
  settle('cancelled');
  return state;
}
