// Personal access tokens: a user's long-lived Bearer tokens for Keyflow's own
// API (/api/oauth/me/*, dynamic registration). The token is `kfpat_` + a
// 256-bit random value; only its SHA-256 hash is stored, as the `_id`, so the
// check at every request is one lookup by `_id`. Revoking deletes the document.
// Every token expires: at most PAT_MAX_LIFETIME_DAYS after it was created, a
// cap applied at creation and, for tokens stored before (or under a longer
// cap), when the api starts.
import { z } from 'zod';
import { hashSecret, newId, newSecret } from '../security/secrets.js';
import { zodProblems } from './errors.js';
import { SCOPES } from './scopes.js';
import type { Role } from './users.js';
import { currentDate, currentTimeMs } from '../runtime/clock.js';

export const PAT_PREFIX = 'kfpat_';

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
export function patScopesFor(role: Role): string[] {
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

/**
 * A new token's fields as a user (the tokens page) or an operator (`keyflow
 * tokens create`) gave them, checked: the schema, and every scope one the
 * user's role may put on a token.
 */
export function checkedNewToken(
  role: Role,
  maxDays: number,
  fields: { name: unknown; scope: string[]; expiresInDays: unknown },
): { ok: true; input: NewPersonalAccessToken } | { ok: false; problems: string[] } {
  const parsed = newPersonalAccessTokenSchema(maxDays).safeParse(fields);
  const allowed = patScopesFor(role);
  const refused = fields.scope.filter((x) => !allowed.includes(x));
  const problems = [...(parsed.success ? [] : zodProblems(parsed.error.issues)), ...(refused.length ? [`scope: not available: ${refused.join(' ')}`] : [])];
  return parsed.success && !problems.length ? { ok: true, input: parsed.data } : { ok: false, problems };
}

/** A new token and its document; the token is shown once and never stored. Scopes must already be checked against patScopesFor. */
export function newPersonalAccessToken(userId: string, input: NewPersonalAccessToken, now = currentDate()): { token: string; doc: PersonalAccessTokenDoc } {
  const token = PAT_PREFIX + newSecret();
  const doc: PersonalAccessTokenDoc = {
    _id: hashSecret(token),
    id: newId(),
    userId,
    name: input.name,
    scope: [...new Set(input.scope)],
    createdAt: now,
    expiresAt: new Date(now.getTime() + input.expiresInDays * 86_400_000),
  };
  return { token, doc };
}

/** Whether a presented string can be a personal access token at all (before any lookup). */
export const isPatCandidate = (token: string): boolean => token.startsWith(PAT_PREFIX) && token.length <= 200;

export const isLivePat = (doc: Pick<PersonalAccessTokenDoc, 'expiresAt'>, now = currentTimeMs()): boolean => !doc.expiresAt || doc.expiresAt.getTime() > now;

/** The expiry a stored token must be shortened to under `maxLifetimeMs` from its creation, or null when it ends in time. */
export function cappedPatExpiry(doc: Pick<PersonalAccessTokenDoc, 'createdAt' | 'expiresAt'>, maxLifetimeMs: number): Date | null {
  const cap = new Date(doc.createdAt.getTime() + maxLifetimeMs);
  return doc.expiresAt !== null && doc.expiresAt <= cap ? null : cap;
}

/** What a live token grants at a resource endpoint (the shape of the api's access context). */
export interface PatAccess {
  userId: string;
  clientId: string;
  scope: string[];
  grantId: string;
  claims: Record<string, unknown>;
}

/** The access a live token of a user with `role` grants: admin scopes lapse when the user is no longer an admin. */
export function patAccess(doc: PersonalAccessTokenDoc, role: Role): PatAccess {
  const allowed = patScopesFor(role);
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
