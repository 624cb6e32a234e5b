// Users' public profiles by id, for lists that show who someone is (a team's
// members to a token allowed to read their profiles): name, username and
// picture only; never the email, the role or anything secret.
import type { Store } from './db.js';

export interface UserProfile {
  name: string;
  username: string;
  picture: string | null;
}

/** The profiles of these users, by id (a user deleted meanwhile is absent). */
export async function profilesOf(store: Store, userIds: string[]): Promise<Map<string, UserProfile>> {
  if (!userIds.length) return new Map();
  const users = await store.users.find({ _id: { $in: userIds } }, { projection: { name: 1, username: 1, picture: 1 } }).toArray();
  return new Map(users.map((u) => [u._id, { name: u.name, username: u.username, picture: u.picture ?? null }]));
}
