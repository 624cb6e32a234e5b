// Personal access tokens: a user's long-lived Bearer tokens for Keyflow's own
// API (/api/oauth/me/*, dynamic registration). The token is `kfpat_` + a
// 256-bit random value; only its SHA-256 hash is stored, as the `_id`, so the
// check at every request is one lookup by `_id`. Revoking deletes the document.
import { z } from 'zod';
import { SCOPES } from '../domain/scopes.js';
import { hashSecret, newId, newSecret } from '../security/secrets.js';
import type { Store } from './db.js';

export const PAT_PREFIX = 'kfpat_';
export const PAT_COLLECTION = 'personal_access_tokens';
export const PAT_MAX_DAYS = 3650;

export interface PersonalAccessTokenDoc {
  /** SHA-256 of the token. */
  _id: string;
  /** Public identifier (pages, `client_id` `pat:<id>` of the access context). */
  id: string;
  userId: string;
  name: string;
  scope: string[];
  createdAt: Date;
  /** null: does not expire. */
  expiresAt: Date | null;
}

/** Scopes a user may put on a personal access token: the catalogue without site scopes, offline_access, and (for non-admins) admin scopes. */
export function patScopesFor(role: 'user' | 'admin'): string[] {
  return Object.entries(SCOPES)
    .filter(([name, info]) => !info.site && name !== 'offline_access' && (!info.adminOnly || role === 'admin'))
    .map(([name]) => name);
}

export const NewPersonalAccessToken = z.object({
  name: z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters'),
  scope: z.array(z.string()).min(1, 'choose at least one scope').max(100),
  /** Days until it expires; null: never. */
  expiresInDays: z.number().int().min(1).max(PAT_MAX_DAYS).nullable(),
});
export type NewPersonalAccessToken = z.infer<typeof NewPersonalAccessToken>;

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
    expiresAt: input.expiresInDays === null ? null : new Date(now.getTime() + input.expiresInDays * 86_400_000),
  };
  await collection(store).insertOne(doc);
  return { token, doc };
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
