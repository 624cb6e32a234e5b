// RefreshFamily (workflow id `grant:<grant id>`): one per grant that has
// refresh tokens. It holds what a workflow is for: the family's absolute
// expiry (a timer), its revocation (an update or a signal) and the cascade
// that follows (the grant revoked, the family's tokens deleted), search
// attributes and a state query an SRE reads. Only SHA-256 hashes of tokens
// ever enter the workflow.
//
// Rotation is not here: the api decides it in MongoDB with a unique insert per
// presented token (lib/store/refresh-rotations.ts: single use, retries within
// the retry window, reuse), with no Temporal call on the client's path.
//
// When the family ends (revoked or expired), its last activity deletes its
// first token by hash and every successor the rotation claims lead to, each a
// lookup by `_id` (a write by grant would scan every family's tokens on
// FerretDB v1). What a crash leaves is refused all the same: the grant is
// revoked first, and past the family's expiry every token is; the daily
// housekeeping pass deletes those.
import { allHandlersFinished, condition, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { RefreshFamilyActivities } from '../activities/refresh-family.js';
import type { FamilyState, RefreshFamilyInput } from '../lib/model/refresh-family.js';
import { familyStateQuery, revokeFamilySignal, revokeFamilyUpdate } from '../lib/temporal/flow-messages.js';
import { SearchAttributes } from '../lib/temporal/search-attributes.js';

const { endFamily } = proxyActivities<RefreshFamilyActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { maximumAttempts: 10 },
});

export async function refreshFamily(input: RefreshFamilyInput): Promise<FamilyState['state']> {
  let state: FamilyState['state'] = 'active';
  const setState = (s: FamilyState['state']) => {
    state = s;
    upsertSearchAttributes([{ key: SearchAttributes.state, value: s }]);
  };
  upsertSearchAttributes([
    { key: SearchAttributes.clientId, value: input.clientId },
    { key: SearchAttributes.userId, value: input.userId },
    { key: SearchAttributes.state, value: 'active' },
  ]);

  const revoke = async (reason: string) => {
    if (state !== 'active') return false;
    setState('revoked');
    await endFamily({ grantId: input.grantId, outcome: 'revoked', reason, hashes: [input.currentHash] });
    return true;
  };

  setHandler(familyStateQuery, () => ({ grantId: input.grantId, state, expiresAt: input.expiresAt }));
  setHandler(revokeFamilyUpdate, async ({ reason }) => ({ revoked: await revoke(reason) }));
  // Async, so that allHandlersFinished waits for the revocation's activity before the workflow ends.
  setHandler(revokeFamilySignal, async ({ reason }) => {
    await revoke(reason);
  });

  // Wait for a revocation or the absolute expiry, whichever comes first.
  const revoked = await condition(() => state !== 'active', Math.max(0, input.expiresAt - Date.now()));
  if (!revoked) {
    setState('expired');
    await endFamily({ grantId: input.grantId, outcome: 'expired', hashes: [input.currentHash] });
  }
  // Let in-flight updates finish before the workflow completes.
  await condition(allHandlersFinished);
  return state;
}
