// Clients (applications) in MongoDB. Secrets are stored only as SHA-256 hashes.
import { NewClientInput, usesClientSecret, type ValidClient } from '../domain/clients.js';
import { ValidationError, zodProblems } from '../domain/errors.js';
import { hashSecret, newId, newSecret } from '../security/secrets.js';
import type { Store } from './db.js';
import { claimOnce } from './single-use.js';

export type ClientDoc = Omit<ValidClient, 'public'> & {
  _id: string;
  public: boolean;
  secretHash: string | null;
  createdAt: Date;
  updatedAt: Date;
};

export type PublicClient = Omit<ClientDoc, '_id' | 'secretHash'> & { clientId: string };

export function publicClient({ _id, secretHash: _omit, ...rest }: ClientDoc): PublicClient {
  return { clientId: _id, ...rest };
}

/** Creates a client; the returned secret (confidential clients only) is never stored or shown again. */
export async function createClient(store: Store, input: NewClientInput): Promise<{ client: ClientDoc; clientSecret: string | null }> {
  const parsed = NewClientInput.safeParse(input);
  if (!parsed.success) throw new ValidationError(zodProblems(parsed.error.issues));
  const clientSecret = usesClientSecret(parsed.data.tokenEndpointAuthMethod) ? newSecret() : null;
  const now = new Date();
  const client: ClientDoc = {
    ...parsed.data,
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

/** Stores the first redirect URI used successfully by a client that had none; false if another was learned first. */
export async function learnRedirectUri(store: Store, clientId: string, redirectUri: string): Promise<boolean> {
  // Only the first claim learns: concurrent first uses cannot both add their URI.
  if (!(await claimOnce(store, `learn-redirect-uri:${clientId}`, 365 * 24 * 3600_000))) return false;
  await store.clients.updateOne({ _id: clientId }, { $push: { redirectUris: { type: 'equals', value: redirectUri } }, $set: { updatedAt: new Date() } });
  return true;
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
