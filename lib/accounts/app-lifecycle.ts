// Making, changing, re-keying and deleting an app, whoever does it: its owner
// (the app API, the account pages, dynamic registration and its management
// endpoint) or the operator (the CLI). The one place for what each does
// besides the store write: the owner's webhooks hear of it (app.created,
// app.updated, app.deleted; an app an operator created has no owner and no
// such webhooks), the audit trail records it (client.created, client.updated,
// client.secret.rotated, client.deleted, whoever the actor), and a deleted
// app's grants go. (What only a site admin
// changes — verification, deactivation, machine access — is
// lib/admin/app-changes.ts.)
//
// Deleting an app revokes every grant it held with its refresh family and
// forgets the consents given to it: its access tokens stop introspecting
// active and its refresh tokens are refused at once (the bearer, introspection
// and refresh checks also refuse the tokens of a client that no longer exists).
import type { ClientDoc, ClientExtras, NewClientInput } from '../model/clients.js';
import type { EventActor, UserEvent } from '../model/webhook-events.js';
import type { FlowClient } from '../flows/flow-client.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import { revokeClientGrants, type BulkRevocation } from '../grants/revocation.js';
import type { ClientWithSecret } from '../model/client-secrets.js';
import { createClient, deleteClient, replaceClient, rotateClientSecret } from '../store/clients.js';
import type { Store } from '../store/db.js';
import { appChanges, appEventData, appUpdatedData } from '../webhooks/event-sources.js';

export interface AppLifecycleDeps {
  store: Store;
  events: { user(name: UserEvent, userId: string, data: Record<string, unknown>, actor: EventActor): Promise<void> };
  audit: Pick<AuditTrail, 'record'>;
}

/** The path an app was created through (client.created's `via`). */
export type AppCreatedVia = 'cli' | 'api' | 'page' | 'registration';

/** Deletion also ends refresh families in Temporal. */
export interface AppDeletionDeps extends AppLifecycleDeps {
  flows: FlowClient;
}

const tellOwner = (deps: AppLifecycleDeps, client: ClientDoc, name: UserEvent, data: Record<string, unknown>, actor: EventActor) =>
  client.ownerUserId ? deps.events.user(name, client.ownerUserId, data, actor) : Promise.resolve();

/** What an app's audit records are about: the app, and its owner when it has one. */
const subjectOf = (client: ClientDoc) => ({ clientId: client._id, ...(client.ownerUserId ? { userId: client.ownerUserId } : {}) });

/** A new app (its secret, when it uses one, shown once by the caller); a ValidationError for settings the model refuses. */
export async function createApp(
  deps: AppLifecycleDeps,
  input: NewClientInput,
  actor: EventActor,
  via: AppCreatedVia,
  extras: Partial<ClientExtras> = {},
): Promise<ClientWithSecret> {
  const created = await createClient(deps.store, input, extras);
  const clientId = created.client._id;
  await Promise.all([
    tellOwner(deps, created.client, 'app.created', appEventData(created.client), actor),
    deps.audit.record('client.created', { actor, subject: subjectOf(created.client), data: { client_id: clientId, via } }),
  ]);
  return created;
}

/** The app with `input` as its settings (a new secret when it starts using one), what changed; null when it is gone. */
export async function updateApp(
  deps: AppLifecycleDeps,
  client: ClientDoc,
  input: NewClientInput,
  actor: EventActor,
  extras: Partial<ClientExtras> = {},
): Promise<(ClientWithSecret & { changed: string[] }) | null> {
  const updated = await replaceClient(deps.store, client, input, extras);
  if (!updated) return null;
  const changed = appChanges(client, updated.client);
  if (changed.length)
    await Promise.all([
      tellOwner(deps, client, 'app.updated', appUpdatedData(updated.client, changed), actor),
      deps.audit.record('client.updated', { actor, subject: subjectOf(client), data: { client_id: client._id, changed } }),
    ]);
  return { ...updated, changed };
}

/** A new client secret (shown once by the caller); null when the app uses none or is gone. */
export async function rotateAppSecret(deps: AppLifecycleDeps, client: ClientDoc, actor: EventActor): Promise<string | null> {
  const secret = await rotateClientSecret(deps.store, client);
  if (secret)
    await Promise.all([
      tellOwner(deps, client, 'app.updated', appUpdatedData(client, ['client_secret']), actor),
      deps.audit.record('client.secret.rotated', { actor, subject: subjectOf(client), data: { client_id: client._id } }),
    ]);
  return secret;
}

/**
 * Deletes the app and revokes what it held. The revocation runs also when the
 * app was already gone (a retried delete finishes what a crash interrupted).
 */
export async function deleteApp(deps: AppDeletionDeps, client: ClientDoc, actor: EventActor): Promise<{ deleted: boolean } & BulkRevocation> {
  const deleted = await deleteClient(deps.store, client._id);
  if (deleted)
    await Promise.all([
      tellOwner(deps, client, 'app.deleted', appEventData(client), actor),
      deps.audit.record('client.deleted', { actor, subject: subjectOf(client), data: { client_id: client._id } }),
    ]);
  return { deleted, ...(await revokeClientGrants(deps, client._id)) };
}
