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

export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

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
      await recordLogoutDelivery(deps.store, { sid, userId, outcome });
      return outcome;
    },
  };
}

export type BackchannelLogoutActivities = ReturnType<typeof createBackchannelLogoutActivities>;
