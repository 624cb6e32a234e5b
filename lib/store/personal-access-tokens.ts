// Personal access tokens: a user's long-lived Bearer tokens for Keyflow's own
// API (/api/oauth/me/*, dynamic registration). The token is `kfpat_` + a
// 256-bit random value; only its SHA-256 hash is stored, as the `_id`, so the
// check at every request is one lookup by `_id`. Revoking deletes the document.
// Every token expires: at most PAT_MAX_LIFETIME_DAYS after it was created, a
// cap applied at creation and, for tokens stored before (or under a longer
// cap), when the api starts (capPersonalAccessTokenLifetimes).
import { z } from 'zod';
import { SCOPES } from '../domain/scopes.js';
import { hashSecret, newId, newSecret } from '../security/secrets.js';
import type { Store } from './db.js';

export const PAT_PREFIX = 'kfpat_';
export const PAT_COLLECTION = 'personal_access_tokens';

export interface PersonalAccessTokenDoc {
  /** SHA-256 of the token. */
  _id: string;
  /** Public identifier (pages, `client_id` `pat:<id>` of the access context). */
  id: string;
  userId: string;
  name: string;
  scope: string[];
  createdAt: Date;
  /** null only on tokens stored before lifetimes were capped (the cap is applied at start). */
  expiresAt: Date | null;
}

/** Scopes a user may put on a personal access token: the catalogue without site scopes, offline_access, and (for non-admins) admin scopes. */
export function patScopesFor(role: 'user' | 'admin'): string[] {
  return Object.entries(SCOPES)
    .filter(([name, info]) => !info.site && name !== 'offline_access' && (!info.adminOnly || role === 'admin'))
    .map(([name]) => name);
}

/** The longest lifetime a new token may have, in whole days (at least 1). */
export const patMaxDays = (maxLifetimeMs: number) => Math.max(1, Math.floor(maxLifetimeMs / 86_400_000));

/** A new token's fields; its lifetime is required and at most `maxDays`. */
export function newPersonalAccessTokenSchema(maxDays: number) {
  return z.object({
    name: z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters'),
    scope: z.array(z.string()).min(1, 'choose at least one scope').max(100),
    expiresInDays: z
      .number({ error: `is required: 1 to ${maxDays} days` })
      .int('must be a whole number of days')
      .min(1, 'must be at least 1 day')
      .max(maxDays, `must be at most ${maxDays} days`),
  });
}
export type NewPersonalAccessToken = z.infer<ReturnType<typeof newPersonalAccessTokenSchema>>;

function collection(store: Store) {
  return store.db.collection<PersonalAccessTokenDoc>(PAT_COLLECTION);
}

/** Creates a token; the returned `token` is never stored or shown again. Scopes must already be checked against patScopesFor. */
export async function createPersonalAccessToken(
  store: Store,
  userId: string,
  input: NewPersonalAccessToken,
): Promise<{ token: string; doc: PersonalAccessTokenDoc }> {
  const token = PAT_PREFIX + newSecret();
  const now = new Date();
  const doc: PersonalAccessTokenDoc = {
    _id: hashSecret(token),
    id: newId(),
    userId,
    name: input.name,
    scope: [...new Set(input.scope)],
    createdAt: now,
    expiresAt: new Date(now.getTime() + input.expiresInDays * 86_400_000),
  };
  await collection(store).insertOne(doc);
  return { token, doc };
}

/**
 * Shortens every stored token that outlives `maxLifetimeMs` from its creation
 * (or has no expiry) to end then: run when the api starts, so a token older
 * than the cap stops working whatever it was created with. Returns how many.
 */
export async function capPersonalAccessTokenLifetimes(store: Store, maxLifetimeMs: number): Promise<number> {
  let capped = 0;
  // Off the hot path: a scan of the collection once per start.
  for await (const doc of collection(store).find({}, { projection: { _id: 1, createdAt: 1, expiresAt: 1 } })) {
    const cap = new Date(doc.createdAt.getTime() + maxLifetimeMs);
    if (doc.expiresAt !== null && doc.expiresAt <= cap) continue;
    await collection(store).updateOne({ _id: doc._id }, { $set: { expiresAt: cap } });
    capped++;
  }
  return capped;
}

/** The user's tokens, newest first (filters on userId: pages only, not a hot path). */
export async function listPersonalAccessTokens(store: Store, userId: string): Promise<PersonalAccessTokenDoc[]> {
  return collection(store).find({ userId }, { sort: { createdAt: -1 }, limit: 500 }).toArray();
}

/** Revokes (deletes) one of the user's tokens; false when there is none with that id. */
export async function revokePersonalAccessToken(store: Store, userId: string, id: string): Promise<boolean> {
  return (await collection(store).deleteOne({ id, userId })).deletedCount === 1;
}

/** The live token document for a presented token (by `_id` = hash), or null when unknown, revoked or expired. */
export async function findPersonalAccessToken(store: Store, token: string): Promise<PersonalAccessTokenDoc | null> {
  if (!token.startsWith(PAT_PREFIX) || token.length > 200) return null;
  const doc = await collection(store).findOne({ _id: hashSecret(token) });
  if (!doc || (doc.expiresAt && doc.expiresAt.getTime() <= Date.now())) return null;
  return doc;
}

/** The access context of a personal access token at a resource endpoint (shape of bearer.ts's AccessContext). */
export async function personalAccessTokenContext(
  store: Store,
  token: string,
): Promise<{ userId: string; clientId: string; scope: string[]; grantId: string; claims: Record<string, unknown> } | null> {
  const doc = await findPersonalAccessToken(store, token);
  if (!doc) return null;
  // The user must still exist; admin scopes lapse when the user is no longer an admin.
  const user = await store.users.findOne({ _id: doc.userId }, { projection: { role: 1 } });
  if (!user) return null;
  const allowed = patScopesFor(user.role);
  const scope = doc.scope.filter((s) => allowed.includes(s));
  const id = `pat:${doc.id}`;
  // No `iss` or `jti` claim: token exchange and introspection accept only Keyflow's JWT access tokens.
  return {
    userId: doc.userId,
    clientId: id,
    scope,
    grantId: id,
    claims: {
      sub: doc.userId,
      client_id: id,
      scope: scope.join(' '),
      token_type: 'personal_access_token',
      iat: Math.floor(doc.createdAt.getTime() / 1000),
      ...(doc.expiresAt ? { exp: Math.floor(doc.expiresAt.getTime() / 1000) } : {}),
    },
  };
}
