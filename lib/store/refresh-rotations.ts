// Refresh token rotation in MongoDB, with no Temporal call on the client's
// path: single use from a unique insert, the primitive authorization codes
// use. Presenting a current token inserts its rotation claim (`_id`
// `rotated:<hash>`, naming the successor); the first insert wins and rotates.
// A later presentation finds the claim: within the retry window of that
// rotation (REFRESH_RETRY_WINDOW_SECONDS) it is a retry whose answer was lost,
// which claims the successor in turn (so the successor it replaces is
// superseded: whichever of the two is used later is reuse); otherwise it is
// reuse, and the caller revokes the grant. Concurrent presentations of one
// token from any number of api processes are decided by the same insert.
//
// Claims live in `refresh_tokens` beside the tokens, with the family's
// expiry: the daily housekeeping pass purges both, and a family's end walks
// from the hashes it knows along the claims to delete every token it had.
import { MAX_RETRIES_PER_ROTATION, rotationClaimId, type RefreshRotationDoc, type RefreshTokenDoc, type StoreRotation } from '../model/refresh-family.js';
import type { Collection } from 'mongodb';
import { isDuplicateKeyError, type Store } from './db.js';
import { inChunks } from './in-chunks.js';

/** Lookups and deletes in flight at once (FerretDB v1 hangs on a thousand concurrent writes). */
const PARALLEL_WRITES = 16;
/**
 * Steps along the claims a family's end takes (one lookup each, about 2 ms on
 * FerretDB v1: well inside the end activity's 20 s). A family that rotated
 * more often leaves its newest tokens to the daily housekeeping pass; they are
 * refused all the same (the grant is revoked, or past its expiry).
 */
const MAX_WALK_STEPS = 4_000;

/** The claim recorded when `hash` was rotated (or superseded by a retry); null if it never was here. */
export function findRotation(store: Store, hash: string): Promise<RefreshRotationDoc | null> {
  return store.refreshRotations.findOne({ _id: rotationClaimId(hash) });
}

export interface RotationRequest {
  newHash: string;
  /** REFRESH_RETRY_WINDOW_SECONDS in ms; 0: every second presentation is reuse. */
  retryWindowMs: number;
  now: Date;
  /** The DPoP key the successor is bound to (refresh-binding.ts); undefined: unbound. */
  jkt?: string;
}

/**
 * Inserts a claim and the successor's document after it in the same ordered
 * insert: one command, and the successor is written only if the claim won (an
 * ordered insert stops at its first failure). False when the claim was taken.
 */
async function insertClaim(store: Store, claim: RefreshRotationDoc, successor: RefreshTokenDoc): Promise<boolean> {
  try {
    await (store.refreshTokens as unknown as Collection<{ _id: string }>).insertMany([claim, successor], { ordered: true });
    return true;
  } catch (err) {
    const first = (err as { writeErrors?: { index?: number }[] }).writeErrors?.[0];
    if (first?.index === 0 && isDuplicateKeyError(first)) return false;
    if (first === undefined && isDuplicateKeyError(err)) return false;
    throw err;
  }
}

/**
 * Decides a presentation of `presented` (a token of a live grant, checked by
 * the caller): rotated to `newHash`, or reuse. The claim comes before the
 * successor's document (in the same ordered insert), so a crash between the
 * two leaves a rotation whose answer was lost, which a retry repairs.
 */
export async function claimRotation(store: Store, presented: RefreshTokenDoc, { newHash, retryWindowMs, now, jkt }: RotationRequest): Promise<StoreRotation> {
  const { jkt: _presentedJkt, ...unbound } = presented;
  const successorDoc: RefreshTokenDoc = { ...unbound, ...(jkt !== undefined ? { jkt } : {}), _id: newHash, issuedAt: now };
  const claim = (hash: string, fields: Pick<RefreshRotationDoc, 'rotatedAt' | 'retryOf'>) =>
    insertClaim(store, { _id: rotationClaimId(hash), grantId: presented.grantId, successor: newHash, expiresAt: presented.expiresAt, ...fields }, successorDoc);
  if (await claim(presented._id, { rotatedAt: now })) return { status: 'rotated' };

  const first = await findRotation(store, presented._id);
  // No claim (a claim purged meanwhile), or superseded by a retry of an older token: reuse.
  if (!first || first.retryOf !== undefined) return { status: 'reused' };
  if (!(retryWindowMs > 0 && now.getTime() - first.rotatedAt.getTime() < retryWindowMs)) return { status: 'reused' };
  // A retry: the newest successor of this token (earlier retries of it may have replaced the first) is claimed
  // for the new one, unless it was used itself, which makes this token older than the newest: reuse.
  let successor = first.successor;
  for (let hop = 0; hop < MAX_RETRIES_PER_ROTATION; hop++) {
    if (await claim(successor, { rotatedAt: first.rotatedAt, retryOf: presented._id })) return { status: 'rotated', replacedHash: successor };
    const next = await findRotation(store, successor);
    if (!next || next.retryOf !== presented._id) return { status: 'reused' };
    successor = next.successor;
  }
  return { status: 'reused' };
}

/** Whether `doc` may be used now: unexpired and never rotated (its claim absent). */
export async function isUnrotated(store: Store, doc: RefreshTokenDoc, now: Date): Promise<boolean> {
  return doc.expiresAt > now && (await findRotation(store, doc._id)) === null;
}

/**
 * A family ended: deletes every token it had, from the hashes it knows along
 * the rotation claims to the newest, and the claims. Read first, then deleted,
 * so an activity retried after a timeout walks the same chain again; anything
 * a crash leaves is refused (the grant is revoked or past its expiry) and
 * purged by the daily housekeeping pass.
 */
export async function deleteFamilyTokens(store: Store, knownHashes: string[]): Promise<void> {
  const hashes = new Set<string>();
  const claims: string[] = [];
  let frontier = [...new Set(knownHashes)];
  for (let step = 0; frontier.length > 0 && step < MAX_WALK_STEPS; step++) {
    for (const h of frontier) hashes.add(h);
    const found = (await inChunks(frontier, PARALLEL_WRITES, (h) => findRotation(store, h))).filter((c): c is RefreshRotationDoc => c !== null);
    claims.push(...found.map((c) => c._id));
    frontier = [...new Set(found.map((c) => c.successor))].filter((h) => !hashes.has(h));
  }
  await inChunks([...hashes], PARALLEL_WRITES, (_id) => store.refreshTokens.deleteOne({ _id }));
  await inChunks(claims, PARALLEL_WRITES, (_id) => store.refreshRotations.deleteOne({ _id }));
}
