// The changes to a user's domains, shared by the API and the account page:
// each writes MongoDB, drives the domain's DomainVerification flow and emits
// its event. Refusals are thrown as ValidationError / ConflictError /
// NotFoundError (another user's domain is "not found").
import { domainToASCII } from 'node:url';
import type { Config } from '../config/env.js';
import { domainEventData, normaliseDomain, txtRecordValue, type DomainDoc, type DomainVerificationInput } from '../model/custom-domains.js';
import { NotFoundError, ValidationError } from '../model/errors.js';
import type { EventActor } from '../model/webhook-events.js';
import { cancelDomainVerification, startDomainVerification, verifyDomainNow } from '../flows/domain-verification.js';
import type { FlowClient } from '../flows/flow-client.js';
import { addDomain, deleteDomain, findUserDomain } from '../store/custom-domains.js';
import type { Store } from '../store/db.js';
import type { EventPipeline } from '../webhooks/event-pipeline.js';
import { currentTimeMs } from '../runtime/clock.js';

export interface DomainChangeDeps {
  store: Store;
  flows: FlowClient;
  events: EventPipeline;
  config: Pick<Config, 'domainVerification'>;
}

const ID = /^[0-9a-f-]{36}$/;

/** The flow's input for a domain: checks from now until the configured deadline. */
function verificationInput(deps: DomainChangeDeps, d: DomainDoc): DomainVerificationInput {
  const t = deps.config.domainVerification;
  return {
    domainId: d._id,
    userId: d.userId,
    domain: d.domain,
    expected: txtRecordValue(d.token),
    firstIntervalMs: t.firstIntervalMs,
    maxIntervalMs: t.maxIntervalMs,
    deadline: currentTimeMs() + t.deadlineMs,
  };
}

/** One of the user's domains, or NotFoundError (a malformed id, another user's domain). */
export async function userDomain(store: Store, userId: string, id: string): Promise<DomainDoc> {
  const d = ID.test(id) ? await findUserDomain(store, userId, id) : null;
  if (!d) throw new NotFoundError('no such domain');
  return d;
}

/** Adds a domain (`domain.added`) and starts its checks. */
export async function addUserDomain(deps: DomainChangeDeps, userId: string, typed: string, actor: EventActor): Promise<DomainDoc> {
  const name = normaliseDomain(typed, domainToASCII);
  if (!name.ok) throw new ValidationError([`domain: ${name.problem}`]);
  const d = await addDomain(deps.store, userId, name.domain);
  await deps.events.user('domain.added', userId, domainEventData(d), actor);
  await startDomainVerification(deps.flows, verificationInput(deps, d));
  return d;
}

/** Asks for a check now (a new flow after an expired one); a verified domain needs none. */
export async function verifyUserDomain(deps: DomainChangeDeps, userId: string, id: string): Promise<DomainDoc> {
  const d = await userDomain(deps.store, userId, id);
  if (!d.verified) await verifyDomainNow(deps.flows, verificationInput(deps, d));
  return d;
}

/** Deletes a domain (`domain.deleted`) and ends its flow. */
export async function removeUserDomain(deps: DomainChangeDeps, userId: string, id: string, actor: EventActor): Promise<void> {
  const d = await userDomain(deps.store, userId, id);
  if (!(await deleteDomain(deps.store, userId, d._id))) throw new NotFoundError('no such domain');
  await cancelDomainVerification(deps.flows, d._id);
  await deps.events.user('domain.deleted', userId, domainEventData(d), actor);
}
