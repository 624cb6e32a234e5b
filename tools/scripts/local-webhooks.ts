// `npm start` on a development issuer (plain http on this machine) lets
// webhooks reach receivers on this machine too, so that a first try with a
// local receiver works without a restart: the outbound guard otherwise
// refuses loopback addresses and plain http. Only where OUTBOUND_ALLOWLIST is
// not set at all (an operator's value is theirs), and never for a public
// issuer, whose webhooks could then be pointed at the host's own services.
import { isDevelopmentIssuer } from '../../lib/config/env.js';

/** Every port of the loopback names, for webhooks alone. */
export const LOCAL_WEBHOOKS_ALLOWLIST = 'webhooks=localhost:*,webhooks=127.0.0.1:*,webhooks=[::1]:*';

/** The OUTBOUND_ALLOWLIST `npm start` gives its processes, or null to leave it as it is. */
export function localWebhooksAllowlist(issuer: string, env: NodeJS.ProcessEnv): string | null {
  return env.OUTBOUND_ALLOWLIST === undefined && isDevelopmentIssuer(issuer) ? LOCAL_WEBHOOKS_ALLOWLIST : null;
}
