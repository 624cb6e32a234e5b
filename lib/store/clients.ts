// Clients (applications) in MongoDB. Secrets are stored only as SHA-256 hashes.
import { NewClientInput, usesClientSecret, type ValidClient } from '../domain/clients.js';
import { ValidationError, zodProblems } from '../domain/errors.js';
import { hashSecret, newId, newSecret } from '../security/secrets.js';
import type { Store } from './db.js';

export type ClientDoc = Omit<ValidClient, 'public'> & {
  _id: string;
  public: boolean;
  secretHash: string | null;
  createdAt: Date;
  updatedAt: Date;
} & Partial<ClientExtras>;

/** Stored beside the model: dynamic registration (RFC 7591/7592) metadata, informational only. */
export interface ClientExtras {
  /** SHA-256 of the RFC 7592 registration access token (clients made by dynamic registration). */
  registrationTokenHash: string | null;
  grantTypes: string[];
  responseTypes: string[];
  clientUri: string | null;
  logoUri: string | null;
}

export type PublicClient = Omit<ClientDoc, '_id' | 'secretHash' | 'registrationTokenHash'> & { clientId: string };

export function publicClient({ _id, secretHash: _omit, registrationTokenHash: _omitToo, ...rest }: ClientDoc): PublicClient {
  return { clientId: _id, ...rest };
}

/** Creates a client; the returned secret (confidential clients only) is never stored or shown again. */
export async function createClient(store: Store, input: NewClientInput, extras: Partial<ClientExtras> = {}): Promise<{ client: ClientDoc; clientSecret: string | null }> {
  const parsed = NewClientInput.safeParse(input);
  if (!parsed.success) throw new ValidationError(zodProblems(parsed.error.issues));
  const clientSecret = usesClientSecret(parsed.data.tokenEndpointAuthMethod) ? newSecret() : null;
  const now = new Date();
  const client: ClientDoc = {
    ...parsed.data,
    ...extras,
    _id: newId(),
    secretHash: clientSecret ? hashSecret(clientSecret) : null,
    createdAt: now,
    updatedAt: now,
  };
  await store.clients.insertOne(client);
  return { client, clientSecret };
}

export async function listClients(store: Store): Promise<PublicClient[]> {
  const docs = await store.clients.find({}, { sort: { createdAt: 1 }, limit: 10_000 }).toArray();
  return docs.map(publicClient);
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

/**
 * Replaces a client's settings (the whole document is rewritten). The id,
 * creation time and registration token stay; the secret stays while the client
 * keeps using one, is dropped when it stops, and is made (and returned once)
 * when it starts.
 */
export async function replaceClient(
  store: Store,
  current: ClientDoc,
  input: NewClientInput,
  extras: Partial<ClientExtras> = {},
): Promise<{ client: ClientDoc; clientSecret: string | null } | null> {
  const parsed = NewClientInput.safeParse(input);
  if (!parsed.success) throw new ValidationError(zodProblems(parsed.error.issues));
  const needsSecret = usesClientSecret(parsed.data.tokenEndpointAuthMethod);
  const clientSecret = needsSecret && !current.secretHash ? newSecret() : null;
  const client: ClientDoc = {
    ...parsed.data,
    registrationTokenHash: current.registrationTokenHash ?? null,
    grantTypes: current.grantTypes,
    responseTypes: current.responseTypes,
    clientUri: current.clientUri ?? null,
    logoUri: current.logoUri ?? null,
    ...extras,
    _id: current._id,
    secretHash: needsSecret ? (clientSecret ? hashSecret(clientSecret) : current.secretHash) : null,
    createdAt: current.createdAt,
    updatedAt: new Date(),
  };
  const result = await store.clients.replaceOne({ _id: current._id }, client);
  return result.matchedCount === 1 ? { client, clientSecret } : null;
}

/** Deletes a client; false when it did not exist. */
export async function deleteClient(store: Store, clientId: string): Promise<boolean> {
  return (await store.clients.deleteOne({ _id: clientId })).deletedCount === 1;
}

/** A new secret for a secret-using client (shown once); null when the client has none or is gone. */
export async function rotateClientSecret(store: Store, client: ClientDoc): Promise<string | null> {
  if (client.public || !usesClientSecret(client.tokenEndpointAuthMethod)) return null;
  const clientSecret = newSecret();
  const result = await store.clients.replaceOne({ _id: client._id }, { ...client, secretHash: hashSecret(clientSecret), updatedAt: new Date() });
  return result.matchedCount === 1 ? clientSecret : null;
}

export type ClientLookup = (clientId: string) => Promise<ClientDoc | null>;

/**
 * Client lookups for the hot paths (authorize, token endpoint), remembered for
 * `ttlMs`: a change to a client (new secret, new redirect URI, deletion) takes
 * effect within that time in every api process. Unknown ids are not remembered.
 */
export function cachedClientLookup(store: Store, ttlMs = 2_000): ClientLookup {
  const cache = new Map<string, { client: ClientDoc; until: number }>();
  return async (clientId) => {
    const hit = cache.get(clientId);
    if (hit && hit.until > Date.now()) return hit.client;
    const client = await findClient(store, clientId);
    if (client) {
      if (cache.size > 10_000) cache.clear();
      cache.set(clientId, { client, until: Date.now() + ttlMs });
    } else cache.delete(clientId);
    return client;
  };
}
