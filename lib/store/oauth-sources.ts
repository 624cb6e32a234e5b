// OAuth sources and the social accounts linked through them, in MongoDB (the
// model: model/oauth-sources.ts). A source's slug and a (source, upstream
// user) link are unique by index, so two concurrent first sign-ins cannot
// link one upstream account twice.
import { ConflictError } from '../model/errors.js';
import type { OAuthSourceDoc, SocialAccountDoc } from '../model/oauth-sources.js';
import { isDuplicateKeyError, type Store } from './db.js';
import { currentDate } from '../runtime/clock.js';

export async function insertSource(store: Store, source: OAuthSourceDoc): Promise<void> {
  try {
    await store.oauthSources.insertOne(source);
  } catch (err) {
    if (isDuplicateKeyError(err)) throw new ConflictError(`the slug ${source.slug} is taken`);
    throw err;
  }
}

export const findSource = (store: Store, id: string) => store.oauthSources.findOne({ _id: id });
export const findSourceBySlug = (store: Store, slug: string) => store.oauthSources.findOne({ slug });
export const listSources = (store: Store) => store.oauthSources.find({}).sort({ slug: 1 }).limit(1_000).toArray();
export const enabledSources = (store: Store) => store.oauthSources.find({ enabled: true }).sort({ name: 1 }).limit(100).toArray();

/** Replaces a source's settings; false when it is gone. A slug another source holds is a ConflictError. */
export async function replaceSource(store: Store, source: OAuthSourceDoc): Promise<boolean> {
  try {
    return (await store.oauthSources.replaceOne({ _id: source._id }, source)).matchedCount === 1;
  } catch (err) {
    if (isDuplicateKeyError(err)) throw new ConflictError(`the slug ${source.slug} is taken`);
    throw err;
  }
}

export async function deleteSource(store: Store, id: string): Promise<boolean> {
  return (await store.oauthSources.deleteOne({ _id: id })).deletedCount === 1;
}

/** Links an upstream account; false when that upstream account is linked already (to anyone). */
export async function insertSocialAccount(store: Store, account: SocialAccountDoc): Promise<boolean> {
  try {
    await store.socialAccounts.insertOne(account);
    return true;
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
}

export const findSocialAccount = (store: Store, sourceId: string, providerUserId: string) => store.socialAccounts.findOne({ sourceId, providerUserId });
export const socialAccountsOf = (store: Store, userId: string) => store.socialAccounts.find({ userId }).sort({ linkedAt: 1 }).limit(100).toArray();

export async function markSocialSignIn(store: Store, id: string): Promise<void> {
  await store.socialAccounts.updateOne({ _id: id }, { $set: { lastSignInAt: currentDate() } });
}
