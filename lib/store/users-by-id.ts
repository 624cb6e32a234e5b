// Several users at once by id, for pages that list people (a team's members):
// one query instead of one per row.
import type { UserDoc } from '../domain/users.js';
import type { Store } from './db.js';

/** The users with these ids that exist, by id. */
export async function findUsersByIds(store: Store, ids: string[]): Promise<Map<string, UserDoc>> {
  const users = ids.length ? await store.users.find({ _id: { $in: ids } }).toArray() : [];
  return new Map(users.map((u) => [u._id, u]));
}
