// The social accounts linked through one OAuth source, as a whole: what goes
// when the source goes (store/oauth-sources.ts holds one account at a time).
import type { Store } from './db.js';

/** Unlinks every social account of a source; how many there were. */
export async function deleteSocialAccountsOfSource(store: Store, sourceId: string): Promise<number> {
  return (await store.socialAccounts.deleteMany({ sourceId })).deletedCount;
}
