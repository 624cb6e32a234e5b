// Several users at once by id, for lists that name people (a team's members),
// reading only the fields each list shows. One `_id` lookup per user, a few
// dozen at a time: on FerretDB v1 an `_id: {$in}` filter reads every user.
import type { UserDoc } from '../model/users.js';
import type { Store } from './db.js';
import { inChunks } from './in-chunks.js';

/** Lookups in flight at once. */
const PARALLEL = 32;

async function usersByIds<K extends keyof UserDoc>(store: Store, ids: string[], fields?: K[]): Promise<Map<string, Pick<UserDoc, '_id' | K>>> {
  const projection = fields ? Object.fromEntries(fields.map((f) => [f, 1])) : undefined;
  const found = new Map<string, Pick<UserDoc, '_id' | K>>();
  const users = await inChunks([...new Set(ids)], PARALLEL, (_id) => store.users.findOne({ _id }, projection ? { projection } : {}));
  for (const u of users) if (u) found.set(u._id, u);
  return found;
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
