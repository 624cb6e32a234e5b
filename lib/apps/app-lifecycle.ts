// Changing, re-keying and deleting an app, whoever does it: its owner (app
// API, account pages, dynamic registration's management endpoint) or the
// operator (CLI). One place for what each does besides the store write: the
// owner's webhooks hear of it (app.updated, app.deleted; an app an operator
// created has no owner and no such webhooks), and a deleted app's grants go.
//
// Deleting an app revokes every grant it held with its refresh family and
// forgets the consents given to it: its access tokens stop introspecting
// active and its refresh tokens are refused at once (the bearer, introspection
// and refresh checks also refuse the tokens of a client that no longer exists).
import type { ClientDoc, NewClientInput } from '../domain/clients.js';
import type { EventActor, UserEvent } from '../domain/webhook-events.js';
import type { FlowClient } from '../flows/flow-client.js';
import { revokeClientGrants, type BulkRevocation } from '../grants/revocation.js';
import type { ClientWithSecret } from '../domain/client-secrets.js';
import { deleteClient, replaceClient, rotateClientSecret } from '../store/clients.js';
import type { Store } from '../store/db.js';
import { appChanges, appEventData, appUpdatedData } from '../webhooks/event-sources.js';

export interface AppLifecycleDeps {
  store: Store;
  events: { user(name: UserEvent, userId: string, data: Record<string, unknown>, actor: EventActor): Promise<void> };
}

/** Deletion also ends refresh families in Temporal. */
export interface AppDeletionDeps extends AppLifecycleDeps {
  flows: FlowClient;
}

const tellOwner = (deps: AppLifecycleDeps, client: ClientDoc, name: UserEvent, data: Record<string, unknown>, actor: EventActor) =>
  client.ownerUserId ? deps.events.user(name, client.ownerUserId, data, actor) : Promise.resolve();

/** The app with `input` as its settings (a new secret when it starts using one), what changed; null when it is gone. */
export async function updateApp(
  deps: AppLifecycleDeps,
  client: ClientDoc,
  input: NewClientInput,
  actor: EventActor,
): Promise<(ClientWithSecret & { changed: string[] }) | null> {
  const updated = await replaceClient(deps.store, client, input);
  if (!updated) return null;
  const changed = appChanges(client, updated.client);
  if (changed.length) await tellOwner(deps, client, 'app.updated', appUpdatedData(updated.client, changed), actor);
  return { ...updated, changed };
}

/** A new client secret (shown once by the caller); null when the app uses none or is gone. */
export async function rotateAppSecret(deps: AppLifecycleDeps, client: ClientDoc, actor: EventActor): Promise<string | null> {
  const secret = await rotateClientSecret(deps.store, client);
  if (secret) await tellOwner(deps, client, 'app.updated', appUpdatedData(client, ['client_secret']), actor);
  return secret;
}

/**
 * Deletes the app and revokes what it held. The revocation runs also when the
 * app was already gone (a retried delete finishes what a crash interrupted).
 */
export async function deleteApp(deps: AppDeletionDeps, client: ClientDoc, actor: EventActor): Promise<{ deleted: boolean } & BulkRevocation> {
  const deleted = await deleteClient(deps.store, client._id);
  if (deleted) await tellOwner(deps, client, 'app.deleted', appEventData(client), actor);
  return { deleted, ...(await revokeClientGrants(deps, client._id)) };
}
