// SudoWindow (workflow id `sudo:<user>:<sid-hash-prefix>:<client>`, see
// lib/store/sudo-windows.ts): one per opening of a step-up sudo window. Within it a
// challenge of the same client is confirmed with the checkbox alone. It holds
// the TTL timer and ends at the TTL (`ended`) or on revocation (`revoked`,
// update `revoke` or signal `revokeWindow`); query `active` answers whether it
// is still open. The api writes the MongoDB projection when it opens the window
// (the hot path reads it, not Temporal); the activities here write its end.
// No secret enters the input: ids, the sid and times only.
import { allHandlersFinished, condition, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { SudoWindowActivities } from '../activities/sudo-window.js';
import type { SudoWindowInput, SudoWindowState } from '../lib/model/sudo-window.js';
import { revokeSudoSignal, revokeSudoUpdate, sudoActiveQuery } from '../lib/temporal/flow-messages.js';
import { SearchAttributes } from '../lib/temporal/search-attributes.js';

const { endSudoWindow } = proxyActivities<SudoWindowActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { maximumAttempts: 10 },
});

export async function sudoWindow(input: SudoWindowInput): Promise<SudoWindowState> {
  let state: SudoWindowState = 'active';
  // The projection write of the end: awaited before the workflow completes (a signal handler does not wait for it).
  let ending: Promise<void> | undefined;
  const end = async (next: Exclude<SudoWindowState, 'active'>): Promise<boolean> => {
    if (state !== 'active') return false;
    state = next;
    upsertSearchAttributes([{ key: SearchAttributes.state, value: next }]);
    ending = endSudoWindow({ windowId: input.windowId, openingId: input.openingId, status: next });
    await ending;
    return true;
  };
  upsertSearchAttributes([
    { key: SearchAttributes.clientId, value: input.clientId },
    { key: SearchAttributes.userId, value: input.userId },
    { key: SearchAttributes.state, value: 'active' },
  ]);

  setHandler(sudoActiveQuery, () => state === 'active' && Date.now() < input.expiresAt);
  setHandler(revokeSudoUpdate, async () => ({ revoked: await end('revoked') }));
  setHandler(revokeSudoSignal, () => void end('revoked'));

  // The TTL timer: revocation or the end of the window, whichever comes first.
  const revoked = await condition(() => state !== 'active', Math.max(0, input.expiresAt - Date.now()));
  if (!revoked) await end('ended');
  await ending;
  await condition(allHandlersFinished);
  return state;
}
