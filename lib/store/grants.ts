// Grants: what one authorization (a code exchange, later a device approval)
// gave a client. Every token carries its grant id; revoking the grant makes all
// of them unusable. This document is the projection resource endpoints read.
import { insertManyIfAbsent, isDuplicateKeyError, type Store } from './db.js';

import type { GrantDoc } from '../model/grants.js';
import { isClientActive } from '../model/clients.js';
import { isDisabled, type UserDoc } from '../model/users.js';
import type { UserStatusLookup } from './users.js';
import { currentDate } from '../runtime/clock.js';

/** What openGrant is given: the grant before it is recorded. */
export type NewGrant = Omit<GrantDoc, 'createdAt' | 'revokedAt' | 'revokedReason'>;

const grantDoc = (grant: NewGrant): GrantDoc => ({ ...grant, createdAt: currentDate(), revokedAt: null, revokedReason: null });

/** Records the grant unless it exists (a reused code may have revoked it first). */
export async function openGrant(store: Store, grant: NewGrant): Promise<GrantDoc> {
  const doc = grantDoc(grant);
  try {
    await store.grants.insertOne(doc);
    return doc;
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    return (await store.grants.findOne({ _id: grant._id }))!;
  }
}

/**
 * openGrant for many grants in one insertMany (bulk loads such as the scale
 * benchmark's filler): grants whose id is already recorded are left as they are.
 */
export async function openGrants(store: Store, grants: NewGrant[]): Promise<void> {
  await insertManyIfAbsent(store.grants, grants.map(grantDoc));
}

export function findGrant(store: Store, grantId: string): Promise<GrantDoc | null> {
  return store.grants.findOne({ _id: grantId });
}

/**
 * Revokes a grant; works before the grant exists too (the code-reuse race).
 * False when it was revoked already.
 */
export async function revokeGrant(store: Store, grantId: string, reason: string): Promise<boolean> {
  const revoked = { revokedAt: currentDate(), revokedReason: reason };
  const existing = await store.grants.findOne({ _id: grantId }, { projection: { revokedAt: 1 } });
  if (existing?.revokedAt) return false;
  if (existing) {
    await updateUntil(store, grantId, { $set: revoked }, (g) => !!g?.revokedAt);
    return true;
  }
  // Absent: leave a revoked placeholder that openGrant will find instead of creating the grant.
  try {
    await store.grants.insertOne({ _id: grantId, ...revoked } as GrantDoc);
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    await store.grants.updateOne({ _id: grantId }, { $set: revoked });
  }
  return true;
}

/** A grant that exists and is not revoked. */
function isLive(grant: Pick<GrantDoc, 'revokedAt' | 'clientId'> | null): boolean {
  // Truthiness, not `=== null`: FerretDB v1 may drop null fields.
  // A revoked placeholder (code reuse before the grant existed) has no clientId.
  return grant !== null && !grant.revokedAt && grant.clientId !== undefined;
}

/** Who a token was issued to, under which grant; `jti` for an access token (which may be revoked alone). */
export interface TokenHolder {
  grantId: string;
  clientId: string;
  userId: string;
  jti?: string;
}

/**
 * Whether a token of this grant may still be used: the grant exists and is not
 * revoked (nor the access token's jti), and its client and user still exist.
 * Deleting a client or user revokes their grants; the existence checks refuse
 * their tokens even where that revocation did not finish; a deactivated client's
 * tokens are refused too (deactivation also revokes its grants), and so are a disabled
 * user's (a grant opened while they were being disabled included). Three lookups by `_id`,
 * in parallel.
 */
export async function isGrantUsable(store: Store, holder: TokenHolder): Promise<boolean> {
  return (await usableGrantUser(store, holder)) !== null;
}

/** isGrantUsable's check, answering with the token's user when usable (UserInfo needs it: no second read). */
export async function usableGrantUser(store: Store, holder: TokenHolder): Promise<UserDoc | null> {
  return (await usableGrant(store, holder))?.user ?? null;
}

/** The same check, with what UserInfo needs of the grant besides: the claims asked for there with the `claims` parameter. */
export async function usableGrant(store: Store, holder: TokenHolder): Promise<{ user: UserDoc; userinfoClaims: string[] } | null> {
  const [grant, client, user] = await Promise.all([
    store.grants.findOne({ _id: holder.grantId }, { projection: { revokedAt: 1, clientId: 1, revokedJtis: 1, userinfoClaims: 1, machine: 1 } }),
    store.clients.findOne({ _id: holder.clientId }, { projection: { _id: 1, deactivatedAt: 1 } }),
    store.users.findOne({ _id: holder.userId }),
  ]);
  if (grant === null || !isLive(grant) || client === null || !isClientActive(client) || user === null || isDisabled(user)) return null;
  // A machine grant has no user: its tokens are for resource servers, not for a user's data here.
  if (grant.machine === true) return null;
  if (holder.jti !== undefined && grant.revokedJtis?.includes(holder.jti)) return null;
  return { user, userinfoClaims: grant.userinfoClaims ?? [] };
}

/**
 * The grant check of the refresh grant and introspection, which need nothing of
 * the client and user but that they are active: one read, the grant. The
 * client is the caller, which just authenticated (through the client lookup,
 * cached 2 s); the user's status comes from `userActive`, cached as long.
 * Every path that disables or deletes a user, or deactivates or deletes a
 * client, revokes the grants before it answers, so a token is refused at once;
 * the 2 s bound only matters where such a revocation did not finish.
 */
export async function isGrantLive(store: Store, holder: TokenHolder, userActive: UserStatusLookup): Promise<boolean> {
  const [grant, active] = await Promise.all([
    store.grants.findOne({ _id: holder.grantId }, { projection: { revokedAt: 1, clientId: 1, revokedJtis: 1, machine: 1 } }),
    // A machine grant's token names its client as `sub`: there is no user to ask about.
    holder.userId === holder.clientId ? true : userActive(holder.userId),
  ]);
  if (grant === null || !isLive(grant) || grant.clientId !== holder.clientId || !active) return false;
  // A user grant's token whose `sub` is its client, or a machine grant's whose is not, is no token Keyflow issued.
  if ((grant.machine === true) !== (holder.userId === holder.clientId)) return false;
  return holder.jti === undefined || !grant.revokedJtis?.includes(holder.jti);
}

/** The grants of a client (its machine grants alone, with `machine`) or of a user not yet revoked (a scan: not a hot path). */
export async function liveGrantIds(
  store: Store,
  owner: { clientId: string; machine?: true } | { userId: string } | { userId: string; clientId: string },
): Promise<string[]> {
  const grants = await store.grants.find(owner, { projection: { _id: 1, revokedAt: 1 } }).toArray();
  return grants.filter((g) => !g.revokedAt).map((g) => g._id);
}

/**
 * FerretDB v1 applies an update by rewriting the whole document it read, so two
 * concurrent updates of one grant (revoke the grant, revoke a jti) can undo each
 * other. Each writer therefore checks that its change stuck, and writes again if not.
 */
async function updateUntil(
  store: Store,
  grantId: string,
  update: Parameters<Store['grants']['updateOne']>[1],
  done: (g: GrantDoc | null) => boolean,
): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    await store.grants.updateOne({ _id: grantId }, update);
    if (done(await store.grants.findOne({ _id: grantId }))) return;
  }
  throw new Error(`could not record the revocation of grant ${grantId}`);
}

export async function revokeAccessToken(store: Store, grantId: string, jti: string): Promise<void> {
  await updateUntil(store, grantId, { $addToSet: { revokedJtis: jti } }, (g) => !g || !!g.revokedJtis?.includes(jti));
}
