// BackchannelLogout (workflow id `logout:<sid>`): one per sign-out. Sends a
// logout token to every client the session signed into that registered a
// backchannel_logout_uri, one activity per client, and returns each outcome
// (visible in the Temporal UI; also recorded in MongoDB). Tokens never enter
// the history: the activity signs and sends them.
import { proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { BackchannelLogoutActivities } from '../activities/backchannel-logout.js';
import type { BackchannelLogoutInput, LogoutDelivery } from '../lib/model/backchannel-logout.js';
import { SearchAttributes } from '../lib/temporal/search-attributes.js';

// One attempt per client: a receiver that is down is recorded as a failure, as with webhooks.
const { deliverLogoutToken } = proxyActivities<BackchannelLogoutActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
});

export async function backchannelLogout(input: BackchannelLogoutInput): Promise<LogoutDelivery[]> {
  upsertSearchAttributes([
    { key: SearchAttributes.userId, value: input.userId },
    { key: SearchAttributes.state, value: 'sending' },
  ]);
  const outcomes = await Promise.all(
    input.clientIds.map((clientId) =>
      deliverLogoutToken({ issuer: input.issuer, sid: input.sid, userId: input.userId, clientId }).catch((err: Error): LogoutDelivery => ({
        clientId,
        sent: true,
        ok: false,
        status: null,
        error: err.message,
        durationMs: null,
      })),
    ),
  );
  upsertSearchAttributes([{ key: SearchAttributes.state, value: outcomes.every((o) => o.ok || !o.sent) ? 'delivered' : 'failed' }]);
  return outcomes;
}
