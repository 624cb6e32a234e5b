// A site admin's changes to any app on the instance, for the admin API, the
// console and the operator CLI alike: marking it verified by the site (shown
// on consent pages and in the `apps` claim), deactivating or reactivating it,
// and what it may get for itself with client_credentials (its machine access:
// a change revokes the machine tokens it holds). Each change
// that changes something emits `admin.app.update` with the actor, and is
// recorded in the audit trail: client.deactivated / client.reactivated for
// `active`, client.updated for the rest.
//
// Deactivation refuses the client at every OAuth endpoint (the shared client
// lookup answers it as unknown) and revokes every grant and refresh family it
// holds, and the consents given to it. Reactivation lets it work again; what
// deactivation revoked stays revoked: users sign in to it afresh.
import { z } from 'zod';
import { isClientActive, NewClientInput, type ClientDoc } from '../model/clients.js';
import { NotFoundError, parseOrRefuse, ValidationError, zodProblems } from '../model/errors.js';
import type { MachineAccessEntry } from '../model/machine-access.js';
import type { AdminEvent, EventActor } from '../model/webhook-events.js';
import type { FlowClient } from '../flows/flow-client.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import { revokeClientGrants, revokeMachineGrants } from '../grants/revocation.js';
import type { Store } from '../store/db.js';
import { setClientDeactivated, setClientMachineAccess, setClientVerified } from '../store/clients.js';
import { currentDate } from '../runtime/clock.js';

export interface AppChangeDeps {
  store: Store;
  flows: FlowClient;
  events: { admin(name: AdminEvent, data: Record<string, unknown>, actor: EventActor): Promise<void> };
  audit: Pick<AuditTrail, 'record'>;
}

/** What a site admin may change on an app (admin API JSON). */
export const AppAdminInput = z
  .object({
    is_verified: z.boolean(),
    active: z.boolean(),
    machine_access: z.array(z.object({ resource: z.string(), scopes: z.array(z.string()).max(50) }).strict()).max(20),
  })
  .partial()
  .strict()
  .refine((v) => v.is_verified !== undefined || v.active !== undefined || v.machine_access !== undefined, 'name is_verified, active or machine_access');
export type AppAdminInput = z.output<typeof AppAdminInput>;

/** The app after a change, what changed (`is_verified`, `active`) and how many grants deactivation revoked. */
export interface AppChange {
  client: ClientDoc;
  changed: string[];
  grantsRevoked: number;
}

const gone = (): never => {
  throw new NotFoundError('no such app');
};

/**
 * Applies a site admin's change to an app (input as the admin API takes it,
 * checked here: a ValidationError names the field). Deactivating revokes the
 * app's grants every time, also when it was already deactivated (nothing is
 * an error twice); an event goes out only when something changed.
 */
export async function changeApp(deps: AppChangeDeps, client: ClientDoc, body: unknown, actor: EventActor): Promise<AppChange> {
  const input = parseOrRefuse(AppAdminInput, body);
  let current = client;
  const changed: string[] = [];
  let grantsRevoked = 0;
  if (input.is_verified !== undefined) {
    if (current.isVerified !== input.is_verified) changed.push('is_verified');
    current = (await setClientVerified(deps.store, current._id, input.is_verified)) ?? gone();
  }
  if (input.active !== undefined) {
    if (isClientActive(current) !== input.active) changed.push('active');
    current = (await setClientDeactivated(deps.store, current._id, input.active ? null : currentDate())) ?? gone();
    if (!input.active) grantsRevoked = (await revokeClientGrants(deps, current._id, 'client deactivated')).grants;
  }
  if (input.machine_access !== undefined) {
    const access = validMachineAccess(current, input.machine_access);
    if (JSON.stringify(current.machineAccess ?? []) !== JSON.stringify(access)) {
      changed.push('machine_access');
      current = (await setClientMachineAccess(deps.store, current._id, access)) ?? gone();
      // What the app may get changed: the machine tokens it holds are revoked, the next request gets what it may now.
      grantsRevoked += (await revokeMachineGrants(deps, current._id)).grants;
    }
  }
  if (changed.length)
    await Promise.all([
      deps.events.admin('admin.app.update', appUpdateData(current, changed), actor),
      recordChange(deps, current, changed, grantsRevoked, actor),
    ]);
  return { client: current, changed, grantsRevoked };
}

/** The audit records of a change: (de|re)activation its own event, the other settings one client.updated. */
async function recordChange(deps: AppChangeDeps, client: ClientDoc, changed: string[], grantsRevoked: number, actor: EventActor): Promise<void> {
  const subject = { clientId: client._id };
  const settings = changed.filter((c) => c !== 'active');
  const records: Promise<void>[] = [];
  if (settings.length) records.push(deps.audit.record('client.updated', { actor, subject, data: { client_id: client._id, changed: settings } }));
  if (changed.includes('active'))
    records.push(
      isClientActive(client)
        ? deps.audit.record('client.reactivated', { actor, subject, data: { client_id: client._id } })
        : deps.audit.record('client.deactivated', { actor, subject, data: { client_id: client._id, grants_revoked: grantsRevoked } }),
    );
  await Promise.all(records);
}

/** The machine access asked for, checked by the client model with the app's other settings: a ValidationError names each problem. */
function validMachineAccess(client: ClientDoc, access: MachineAccessEntry[]): MachineAccessEntry[] {
  const {
    _id,
    secretHash,
    createdAt,
    updatedAt,
    deactivatedAt,
    registrationTokenHash,
    grantTypes,
    responseTypes,
    clientUri,
    logoUri,
    policyUri,
    tosUri,
    ...model
  } = client;
  void [_id, secretHash, createdAt, updatedAt, deactivatedAt, registrationTokenHash, grantTypes, responseTypes, clientUri, logoUri, policyUri, tosUri];
  const parsed = NewClientInput.safeParse({ ...model, machineAccess: access });
  if (!parsed.success) {
    if (access.length === 0 && client.redirectUris.length === 0)
      throw new ValidationError([
        'machine_access: this app has no redirect URI, so without machine access it could do nothing: give it a redirect URI first, or delete it',
      ]);
    const problems = parsed.error.issues.filter((i) => i.path[0] === 'machineAccess' || i.path.length === 0);
    throw new ValidationError(zodProblems(problems.length ? problems : parsed.error.issues).map((p) => p.replace(/^machineAccess/, 'machine_access')));
  }
  return parsed.data.machineAccess;
}

/** `admin.app.update`'s data: which app, what changed, and the state after. */
export function appUpdateData(client: ClientDoc, changed: string[]): Record<string, unknown> {
  return {
    app_id: client._id,
    name: client.name,
    changed,
    is_verified: client.isVerified,
    is_active: isClientActive(client),
    machine_access: client.machineAccess ?? [],
  };
}

export const setAppVerified = (deps: AppChangeDeps, client: ClientDoc, isVerified: boolean, actor: EventActor) =>
  changeApp(deps, client, { is_verified: isVerified }, actor);
export const deactivateApp = (deps: AppChangeDeps, client: ClientDoc, actor: EventActor) => changeApp(deps, client, { active: false }, actor);
export const reactivateApp = (deps: AppChangeDeps, client: ClientDoc, actor: EventActor) => changeApp(deps, client, { active: true }, actor);
