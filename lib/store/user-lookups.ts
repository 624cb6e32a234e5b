// Finding a user by email or username with an `_id` lookup.
//
// FerretDB v1 (SQLite) looks documents up through an index only for a filter
// that is exactly `{_id: value}`; `users.findOne({email})` reads every user
// (measured: sign-in went from 1.7 s to 73 s at 100,000 users). So each email
// and username also has a key document in `user_keys`, `_id` `email:<email>` or
// `username:<username>`, naming the user that holds it.
//
// The unique indexes on `users.email` and `users.username` still decide who
// may hold a value (both FerretDB and MongoDB enforce them on every write); a
// key is only a pointer, written after the user document it points to:
// - a key is trusted only when the user it names still holds the value (a key
//   left behind by a change, a deletion or a refused insert is ignored and
//   overwritten by the next holder), so a stale key never finds the wrong user;
// - a user document written without its key (a process that died in between)
//   is not found by email or username until its key is written again: the
//   next refused sign-up with that value, an admin change, or
//   `indexUserKeys` at start repairs it.
import type { UserDoc } from '../model/users.js';
import { insertManyIfAbsent, type Store } from './db.js';

/** The user fields with a key. */
export type KeyedField = 'email' | 'username';
const KEYED: readonly KeyedField[] = ['email', 'username'];

const keyId = (field: KeyedField, value: string) => `${field}:${value}`;

/** The user holding `value` in `field` (values as stored: lowercase), or null. */
export async function findUserByKey(store: Store, field: KeyedField, value: string): Promise<UserDoc | null> {
  const key = await store.userKeys.findOne({ _id: keyId(field, value) });
  if (!key) return null;
  const user = await store.users.findOne({ _id: key.userId });
  return user && user[field] === value ? user : null;
}

/** Points the keys of the user's email and username at it (after the user document holding them was written). */
export async function writeUserKeys(store: Store, user: Pick<UserDoc, '_id'> & Partial<Pick<UserDoc, KeyedField>>): Promise<void> {
  await Promise.all(
    KEYED.filter((field) => user[field] !== undefined).map((field) =>
      store.userKeys.replaceOne({ _id: keyId(field, user[field]!) }, { userId: user._id }, { upsert: true }),
    ),
  );
}

/**
 * After a unique index refused `value`: points its key at the account that
 * really holds it (found by a scan: only on this refused path), so an account
 * whose key was never written becomes findable again.
 */
export async function repairUserKey(store: Store, field: KeyedField, value: string): Promise<UserDoc | null> {
  const holder = await store.users.findOne({ [field]: value });
  if (holder) await writeUserKeys(store, { _id: holder._id, [field]: value });
  return holder;
}

/** Deletes the keys that still point at a deleted user (a key another account took over meanwhile stays). */
export async function deleteUserKeys(store: Store, user: Pick<UserDoc, '_id' | KeyedField>): Promise<void> {
  await Promise.all(
    KEYED.map(async (field) => {
      const id = keyId(field, user[field]);
      const key = await store.userKeys.findOne({ _id: id });
      if (key?.userId === user._id) await store.userKeys.deleteOne({ _id: id });
    }),
  );
}

/** Keys for users inserted in bulk (insertUsers): one insertMany; keys already there stay. */
export async function insertUserKeys(store: Store, users: Pick<UserDoc, '_id' | KeyedField>[]): Promise<void> {
  await insertManyIfAbsent(
    store.userKeys,
    users.flatMap((u) => KEYED.map((field) => ({ _id: keyId(field, u[field]), userId: u._id }))),
  );
}
