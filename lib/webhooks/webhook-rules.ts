// The rules of the webhook API: user and admin webhooks differ only by this
// table (base path, limit, who sees them, scopes), and a URL is refused at
// once when delivery would refuse it anyway.
import type { WebhookScope } from '../model/webhook-events.js';
import { WEBHOOK_LIMITS } from '../model/webhooks.js';
import { isLoopbackHost } from '../model/redirect-uri.js';
import { admitsUrl, refusedHost, type OutboundPolicy } from '../runtime/http-client.js';

export interface Rules {
  base: string;
  /** Webhooks per user (user scope) or per site (admin scope). */
  max: number;
  /** Only users with role `admin` see these routes (404 to anyone else). */
  adminOnly: boolean;
  scopes: { read: string; write: string; delete: string };
}

export const WEBHOOK_RULES: Record<WebhookScope, Rules> = {
  user: {
    base: '/api/oauth/me/webhooks',
    max: WEBHOOK_LIMITS.user,
    adminOnly: false,
    scopes: { read: 'webhooks:read', write: 'webhooks:write', delete: 'webhooks:write' },
  },
  admin: {
    base: '/api/oauth/me/admin/webhooks',
    max: WEBHOOK_LIMITS.admin,
    adminOnly: true,
    scopes: { read: 'admin:webhooks:read', write: 'admin:webhooks:write', delete: 'admin:webhooks:delete' },
  },
};

/** Longer ids are not looked up (404 at once). */
export const MAX_ID_LENGTH = 100;

/**
 * A URL whose host is an internal IP address (or localhost) outside the
 * operator's allow-list would only ever be refused at delivery: say so now.
 * Names that resolve to internal addresses are still refused at delivery.
 * https only: plain http only for a loopback
 * receiver the allow-list admits for webhooks, because events, signatures
 * and test-ping answers must not cross a network in clear text.
 */
export function undeliverable(outbound: Pick<OutboundPolicy, 'allow'>, url: string | undefined): string | null {
  if (url === undefined) return null;
  const target = new URL(url);
  const host = refusedHost(outbound, 'webhooks', target);
  if (host) return `url: ${host} is an internal address; Keyflow does not deliver to it (an operator can admit it with OUTBOUND_ALLOWLIST)`;
  if (target.protocol === 'http:' && !(isLoopbackHost(target.hostname) && admitsUrl(outbound, 'webhooks', target))) {
    return 'url: must use https (http only for a loopback receiver that OUTBOUND_ALLOWLIST admits for webhooks)';
  }
  return null;
}
