// When a signing key is in the JWKS and when it signs: staged keys. Every
// process (api, worker, CLI) computes a key's phase from the stored documents
// and its clock alone, so they agree without talking to each other:
//
//   published  in the JWKS, not signing yet (until its signsFrom)
//   signing    the key new tokens of its algorithm are signed with
//   previous   superseded by a newer key, still in the JWKS until retired
//   retiring   retired by the operator, in the JWKS until its publishedUntil
//   removed    no longer in the JWKS
//
// A new key is published for SIGNING_LEAD_SECONDS before it signs, so that
// every copy of the JWKS (each process's cache, RPs' and HTTP caches) has it
// by its first token; a retired key stays published for
// RETIRED_KEY_RETENTION_SECONDS, until the last token it signed has expired.
import { LOGOUT_TOKEN_TTL_SECONDS } from './backchannel-logout.js';
import { TOKEN_TTL_SECONDS } from './claims.js';
import type { SigningAlg, SigningKeyDoc } from './signing-keys.js';

/**
 * How long a process keeps the keys it read (the keyring's cache): how far its
 * JWKS and signing key lag the database. Short, as a read of the few key
 * documents costs little, so a rotation or retirement reaches every process soon.
 */
export const KEY_CACHE_SECONDS = 10;
/** The JWKS response's max-age: RPs and shared HTTP caches may serve their copy this long without asking again. */
export const JWKS_MAX_AGE_SECONDS = 300;
/** For clocks that differ: Keyflow's hosts among themselves, and RPs, which commonly accept an `exp` up to 5 minutes late. */
export const CLOCK_SKEW_SECONDS = 300;
/** The longest-lived JWT Keyflow signs (access and ID tokens; logout tokens are shorter, signed UserInfo is checked on receipt). */
const LONGEST_TOKEN_SECONDS = Math.max(TOKEN_TTL_SECONDS, LOGOUT_TOKEN_TTL_SECONDS);

/**
 * From publication to the first signature: every process has read the new key
 * (10 s), then every JWKS an RP or HTTP cache fetched before that has expired
 * (300 s); an RP that refetches on an unknown `kid` may be answered from a
 * shared cache, and some never refetch. Rotation is never urgent (a
 * compromised key is retired, not rotated away), so waiting costs little.
 */
export const SIGNING_LEAD_SECONDS = KEY_CACHE_SECONDS + JWKS_MAX_AGE_SECONDS + CLOCK_SKEW_SECONDS;
/**
 * From retirement to removal: a process that read the keys just before the
 * retirement may sign with the key up to 10 s later (with a clock behind the
 * retiring one's), that token lives an hour, and RPs accept it a little past
 * its `exp`.
 */
export const RETIRED_KEY_RETENTION_SECONDS = KEY_CACHE_SECONDS + LONGEST_TOKEN_SECONDS + CLOCK_SKEW_SECONDS;

export type KeyPhase = 'published' | 'signing' | 'previous' | 'retiring' | 'removed';

type PhaseDoc = Pick<SigningKeyDoc, '_id' | 'alg' | 'generation' | 'status' | 'createdAt' | 'signsFrom' | 'retiredAt' | 'publishedUntil'>;

/** When a new key starts signing: at once for the first key of its algorithm (no process has signed or cached one yet), else after the lead time. */
export function signsFromFor(createdAt: Date, firstOfAlg: boolean): Date {
  return firstOfAlg ? createdAt : new Date(createdAt.getTime() + SIGNING_LEAD_SECONDS * 1000);
}

/** Until when a key retired at `retiredAt` stays published. */
export function publishedUntilFor(retiredAt: Date): Date {
  return new Date(retiredAt.getTime() + RETIRED_KEY_RETENTION_SECONDS * 1000);
}

/**
 * The key of `alg` that signs at `now`: the newest active key whose time has
 * come. When none has (this clock is behind the one that stored the keys), the
 * active key due first: published long enough, or the first of its algorithm.
 */
export function signingKeyAt<D extends PhaseDoc>(docs: readonly D[], alg: SigningAlg, now: Date): D | undefined {
  const active = docs.filter((d) => d.alg === alg && d.status === 'active');
  const due = active.filter((d) => d.signsFrom <= now).sort((a, b) => b.generation - a.generation)[0];
  return due ?? active.sort((a, b) => a.signsFrom.getTime() - b.signsFrom.getTime())[0];
}

/** The phase of `doc` at `now`, among `docs` (the keys of its algorithm at least: which one signs depends on the others). */
export function keyPhase(doc: PhaseDoc, docs: readonly PhaseDoc[], now: Date): KeyPhase {
  const { signsFrom, publishedUntil } = doc;
  if (doc.status === 'retired' && publishedUntil) return now < publishedUntil ? 'retiring' : 'removed';
  if (signingKeyAt(docs, doc.alg, now)?._id === doc._id) return 'signing';
  return now < signsFrom ? 'published' : 'previous';
}

/** Whether a key in `phase` is in the JWKS (and verifies Keyflow's own tokens). */
export const isPublished = (phase: KeyPhase): boolean => phase !== 'removed';
