// The activities the worker registers: all I/O of Keyflow's workflows.
import type { Signer } from '../lib/keys/signer.js';
import type { OutboundPolicy } from '../lib/runtime/http-client.js';
import type { Store } from '../lib/store/db.js';
import { createBackchannelLogoutActivities } from './backchannel-logout.js';
import { createDeviceAuthorizationActivities } from './device-authorization.js';
import { createDomainVerificationActivities } from './domain-verification.js';
import { createStepUpChallengeActivities } from './step-up-challenge.js';
import { createHousekeepingActivities } from './housekeeping.js';
import { createRefreshFamilyActivities } from './refresh-family.js';
import { createSudoWindowActivities } from './sudo-window.js';
import { createWebhookDeliveryActivities } from './webhook-delivery.js';
import { createAuditSealingActivities } from './audit-sealing.js';
import type { AuditStreamWriter } from '../lib/audit/audit-stream.js';
import type { Kek } from '../lib/security/kek.js';
import type { AuditTrail } from '../lib/audit/audit-trail.js';

export interface ActivityDeps {
  store: Store;
  signer: Signer;
  issuer: string;
  outbound: OutboundPolicy;
  /** Unseals webhook signing secrets. */
  kek: Kek;
  /** DNS_RESOLVERS: where domain verification asks for TXT records. */
  dnsResolvers: string[];
  /** WEBHOOK_TIMEOUT_MS, for events the activities emit. */
  webhookTimeoutMs: number;
  /** The audit trail's recorder, for what the workflows decide (step-up outcomes, sudo windows ending). */
  audit: AuditTrail;
  /** AUDIT_STREAM's writer (null: off). */
  auditStream?: AuditStreamWriter | null;
}

export function createActivities(deps: ActivityDeps) {
  const { store } = deps;
  return {
    ...createBackchannelLogoutActivities(deps),
    ...createHousekeepingActivities(store),
    ...createRefreshFamilyActivities(store),
    ...createDeviceAuthorizationActivities(store),
    ...createSudoWindowActivities(deps),
    ...createStepUpChallengeActivities(deps),
    ...createWebhookDeliveryActivities(deps),
    ...createDomainVerificationActivities(deps),
    ...createAuditSealingActivities({ store, signer: deps.signer, audit: deps.audit, stream: deps.auditStream ?? null }),
  };
}
