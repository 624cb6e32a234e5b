// Clients (applications) in MongoDB. What a client's document holds, and how
// it changes on create, replace and secret rotation: model/clients.ts and
// model/client-secrets.ts; here it is read and written.
import { newClient, replacedClient, withNewClientSecret, type ClientWithSecret } from '../model/client-secrets.js';
import { isClientActive, type ClientDoc, type ClientExtras, type NewClientInput } from '../model/clients.js';
import { insertManyIfAbsent, type Store } from './db.js';
import { remembered } from './remembered.js';
import type { MachineAccessEntry } from '../model/machine-access.js';
import { currentDate } from '../runtime/clock.js';

// Re-exported for modules that still import it from the store.

/** Creates a client; the returned secret (confidential clients only) is never stored or shown again. */
export async function createClient(store: Store, input: NewClientInput, extras: Partial<ClientExtras> = {}): Promise<ClientWithSecret> {
  const created = newClient(input, extras);
  await store.clients.insertOne(created.client);
  return created;
}

/** Inserts clients built by newClient in one insertMany (bulk loads); those already there are left as they are. */
export async function insertClients(store: Store, docs: ClientDoc[]): Promise<void> {
  await insertManyIfAbsent(store.clients, docs);
}

export async function listClients(store: Store): Promise<ClientDoc[]> {
  return store.clients.find({}, { sort: { createdAt: 1 }, limit: 10_000 }).toArray();
}

/** How many clients are registered for `alg` ID tokens (a scan, once at start). */
export function countClientsWithIdTokenAlg(store: Store, alg: ClientDoc['idTokenSignedResponseAlg']): Promise<number> {
  return store.clients.countDocuments({ idTokenSignedResponseAlg: alg });
}

export async function findClient(store: Store, clientId: string): Promise<ClientDoc | null> {
  return store.clients.findOne({ _id: clientId });
}

// Create (above), replace, delete and secret rotation of clients: the app API,
// the /account/apps page and dynamic registration all go through these (their
// routes emit app.created / app.updated / app.deleted, events/sources.ts).

/** A user's own applications (filters on ownerUserId: not a hot path). */
export async function listClientsByOwner(store: Store, ownerUserId: string): Promise<ClientDoc[]> {
  return store.clients.find({ ownerUserId }, { sort: { createdAt: 1 }, limit: 1_000 }).toArray();
}

/** Replaces a client's settings (replacedClient says what stays); null when the client is gone. */
export async function replaceClient(
  store: Store,
  current: ClientDoc,
  input: NewClientInput,
  extras: Partial<ClientExtras> = {},
): Promise<ClientWithSecret | null> {
  const replaced = replacedClient(current, input, extras);
  const result = await store.clients.replaceOne({ _id: current._id }, replaced.client);
  return result.matchedCount === 1 ? replaced : null;
}

/** Deletes a client; false when it did not exist. */
export async function deleteClient(store: Store, clientId: string): Promise<boolean> {
  return (await store.clients.deleteOne({ _id: clientId })).deletedCount === 1;
}

/** A new secret for a secret-using client (shown once); null when the client has none or is gone. */
export async function rotateClientSecret(store: Store, client: ClientDoc): Promise<string | null> {
  const rotated = withNewClientSecret(client);
  if (!rotated) return null;
  const result = await store.clients.replaceOne({ _id: client._id }, rotated.client);
  return result.matchedCount === 1 ? rotated.clientSecret : null;
}

/**
 * Deactivates (a date) or reactivates (null) a client; the client as stored
 * after, or null when it is gone. Setting the state it already has changes nothing.
 */
export async function setClientDeactivated(store: Store, clientId: string, deactivatedAt: Date | null): Promise<ClientDoc | null> {
  const now = currentDate();
  await store.clients.updateOne(deactivatedAt ? { _id: clientId, deactivatedAt: null } : { _id: clientId, deactivatedAt: { $ne: null } }, {
    $set: { deactivatedAt, updatedAt: now },
  });
  return findClient(store, clientId);
}

/** Marks a client verified by the site or not; the client as stored after, or null when it is gone. */
export async function setClientVerified(store: Store, clientId: string, isVerified: boolean): Promise<ClientDoc | null> {
  await store.clients.updateOne({ _id: clientId, isVerified: { $ne: isVerified } }, { $set: { isVerified, updatedAt: currentDate() } });
  return findClient(store, clientId);
}

/** Sets what a client may get with client_credentials (already validated); the client as stored after, or null when it is gone. */
export async function setClientMachineAccess(store: Store, clientId: string, machineAccess: MachineAccessEntry[]): Promise<ClientDoc | null> {
  await store.clients.updateOne({ _id: clientId }, { $set: { machineAccess, updatedAt: currentDate() } });
  return findClient(store, clientId);
}

/**
 * Every client on the instance whose name or id contains `q` (case-insensitive),
 * oldest first, a page of them. Matched here rather than by a query pattern:
 * an instance has at most a few thousand clients, and no user text becomes a regex.
 */
/** The orders the console lists apps in. */
export const CLIENT_SORTS = ['created', 'name'] as const;
export type ClientSort = (typeof CLIENT_SORTS)[number];

export async function pageClients(
  store: Store,
  q: string,
  limit: number,
  offset: number,
  order: { sort: ClientSort; dir: 'asc' | 'desc' } = { sort: 'created', dir: 'asc' },
): Promise<ClientDoc[]> {
  const docs = await store.clients.find({}, { sort: { createdAt: 1, _id: 1 }, limit: 10_000 }).toArray();
  const needle = q.toLowerCase();
  const matching = needle ? docs.filter((c) => c.name.toLowerCase().includes(needle) || c._id.toLowerCase().includes(needle)) : docs;
  // Names compared without case; the creation order (stable sort) keeps equal names in a fixed order across pages.
  if (order.sort === 'name') matching.sort((a, b) => a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }));
  if (order.dir === 'desc') matching.reverse();
  return matching.slice(offset, offset + limit);
}

/** A lookup of the clients that may use the OAuth endpoints: a deactivated or unknown client is null. */
export type ClientLookup = (clientId: string) => Promise<ClientDoc | null>;

/**
 * Client lookups for the hot paths (authorize, token endpoint), remembered for
 * `ttlMs`: a change to a client (new secret, new redirect URI, deletion,
 * deactivation) takes effect within that time in every api process. Unknown
 * ids are not remembered. A deactivated client is answered as unknown.
 */
export function cachedClientLookup(store: Store, ttlMs = 2_000): ClientLookup {
  const lookup = remembered(
    ttlMs,
    (clientId) => findClient(store, clientId),
    (client) => client !== null,
  );
  return async (clientId) => {
    const client = await lookup(clientId);
    return client && isClientActive(client) ? client : null;
  };
}
