// Activities of the DomainVerification workflow: the TXT lookup through the
// configured DNS servers, and the domain marked verified with its
// `domain.verified` event (to the owner's webhooks, dispatched from here
// through the worker's own Temporal client).
import { Context } from '@temporalio/activity';
import { domainEventData } from '../lib/model/custom-domains.js';
import { txtLookup, type TxtLookup } from '../lib/accounts/dns-txt-lookup.js';
import { createLogger } from '../lib/runtime/log.js';
import type { AuditTrail } from '../lib/audit/audit-trail.js';
import type { Store } from '../lib/store/db.js';
import { findDomain, markDomainVerified } from '../lib/store/custom-domains.js';
import { createEventPipeline, derivedUuid } from '../lib/webhooks/event-pipeline.js';
import { currentDate } from '../lib/runtime/clock.js';

export interface DomainVerificationDeps {
  store: Store;
  /** DNS_RESOLVERS: empty for the system's servers. */
  dnsResolvers: string[];
  /** WEBHOOK_TIMEOUT_MS, carried into the deliveries of `domain.verified`. */
  webhookTimeoutMs: number;
  audit: AuditTrail;
}

export function createDomainVerificationActivities(deps: DomainVerificationDeps, lookup: TxtLookup = txtLookup(deps.dnsResolvers)) {
  const log = createLogger('warn');
  return {
    /** Whether one of the TXT values at `name` is exactly `expected`. */
    async checkDomainTxt(input: { name: string; expected: string }): Promise<boolean> {
      return (await lookup(input.name)).includes(input.expected);
    },

    /**
     * Marks the domain verified and emits `domain.verified`; false when the
     * domain is gone. A retry (the worker died after the mark) finds the mark
     * done and emits again under the same event id, so the event is neither
     * lost nor delivered twice.
     */
    async recordDomainVerified(input: { domainId: string }): Promise<boolean> {
      await markDomainVerified(deps.store, input.domainId, currentDate());
      const domain = await findDomain(deps.store, input.domainId);
      if (!domain?.verified) return false;
      const { client, info } = Context.current();
      const events = createEventPipeline({
        store: deps.store,
        audit: deps.audit,
        flows: { client, taskQueue: info.taskQueue },
        log,
        deliveryTimeoutMs: deps.webhookTimeoutMs,
      });
      await events.user('domain.verified', domain.userId, domainEventData(domain), { type: 'system' }, { eventId: derivedUuid('domain.verified', domain._id) });
      await events.idle();
      return true;
    },
  };
}

export type DomainVerificationActivities = ReturnType<typeof createDomainVerificationActivities>;
