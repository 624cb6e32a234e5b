// Users' email addresses by id, in one query: lists that name many users (a team's members).
import type { Store } from './db.js';

export async function emailsByUserId(store: Store, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const docs = await store.users.find({ _id: { $in: ids } }, { projection: { _id: 1, email: 1 } }).toArray();
  return new Map(docs.map((d) => [d._id, d.email]));
}
