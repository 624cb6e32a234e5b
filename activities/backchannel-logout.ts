// Back-channel logout delivery (OIDC Back-Channel Logout 1.0 §2.4-2.5): a
// logout token (RS256, typ logout+jwt) POSTed as a form to the client's
// backchannel_logout_uri through the outbound client; the outcome is recorded.
import { LOGOUT_TOKEN_TTL_SECONDS, type LogoutDelivery } from '../lib/model/backchannel-logout.js';
import type { Signer } from '../lib/keys/signer.js';
import { outboundRequest, OutboundError, type OutboundPolicy } from '../lib/runtime/http-client.js';
import { newId } from '../lib/security/secrets.js';
import { findClient } from '../lib/store/clients.js';
import type { Store } from '../lib/store/db.js';
import { recordLogoutDelivery } from '../lib/store/logout-deliveries.js';
import { currentTimeMs } from '../lib/runtime/clock.js';
import { countDelivery } from '../lib/runtime/metrics.js';
import { Context } from '@temporalio/activity';

export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/**
 * When the sign-out happened, as near as the activity knows: its input has no
 * time, but the workflow schedules it at once on the sign-out, so the time it
 * was scheduled (retries excluded) stands for it. Outside an activity (a
 * direct call in a test), the token's iat.
 */
function signedOutAtMs(iat: number): number {
  try {
    return Context.current().info.scheduledTimestampMs;
  } catch {
    return iat * 1000;
  }
}

export function createBackchannelLogoutActivities(deps: { store: Store; signer: Signer; outbound: OutboundPolicy }) {
  return {
    async deliverLogoutToken({ issuer, sid, userId, clientId }: { issuer: string; sid: string; userId: string; clientId: string }): Promise<LogoutDelivery> {
      const client = await findClient(deps.store, clientId);
      if (!client?.backchannelLogoutUri) return { clientId, sent: false, ok: true, status: null, error: null, durationMs: null };
      const now = Math.floor(currentTimeMs() / 1000);
      const logoutToken = await deps.signer.sign(
        {
          iss: issuer,
          aud: clientId,
          sub: userId,
          iat: now,
          exp: now + LOGOUT_TOKEN_TTL_SECONDS,
          jti: newId(),
          sid,
          events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
        },
        { alg: 'RS256', typ: 'logout+jwt' },
      );
      let outcome: LogoutDelivery;
      try {
        const res = await outboundRequest(deps.outbound, 'backchannel_logout', client.backchannelLogoutUri, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ logout_token: logoutToken }).toString(),
        });
        outcome = { clientId, sent: true, ok: res.status >= 200 && res.status < 300, status: res.status, error: null, durationMs: res.durationMs };
      } catch (err) {
        const kind = err instanceof OutboundError ? err.kind : 'unreachable';
        outcome = { clientId, sent: true, ok: false, status: null, error: kind, durationMs: null };
      }
      countDelivery('backchannel_logout', outcome.ok ? 'delivered' : 'failed', (currentTimeMs() - signedOutAtMs(now)) / 1000);
      await recordLogoutDelivery(deps.store, { sid, userId, outcome });
      return outcome;
    },
  };
}

export type BackchannelLogoutActivities = ReturnType<typeof createBackchannelLogoutActivities>;
