// Several users at once by id, for lists that name people (a team's members):
// one query instead of one per row, reading only the fields each list shows.
import type { UserDoc } from '../domain/users.js';
import type { Store } from './db.js';

async function usersByIds<K extends keyof UserDoc>(store: Store, ids: string[], fields?: K[]): Promise<Map<string, Pick<UserDoc, '_id' | K>>> {
  if (!ids.length) return new Map();
  const projection = fields ? Object.fromEntries(fields.map((f) => [f, 1])) : undefined;
  const users = await store.users.find({ _id: { $in: ids } }, projection ? { projection } : {}).toArray();
  return new Map(users.map((u) => [u._id, u]));
}

/** The users with these ids that exist, by id. */
export const findUsersByIds = (store: Store, ids: string[]): Promise<Map<string, UserDoc>> => usersByIds(store, ids);

/** Their email addresses, by id (the operator CLI's member lists). */
export async function emailsByUserId(store: Store, ids: string[]): Promise<Map<string, string>> {
  const users = await usersByIds(store, ids, ['email']);
  return new Map([...users].map(([id, u]) => [id, u.email]));
}

export interface UserProfile {
  name: string;
  username: string;
  picture: string | null;
}

/** Their public profiles (name, username, picture; never the email or the role), by id; a user deleted meanwhile is absent. */
export async function profilesOf(store: Store, ids: string[]): Promise<Map<string, UserProfile>> {
  const users = await usersByIds(store, ids, ['name', 'username', 'picture']);
  return new Map([...users].map(([id, u]) => [id, { name: u.name, username: u.username, picture: u.picture ?? null }]));
}
