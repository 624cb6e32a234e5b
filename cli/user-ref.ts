// The user a command line names (id, email or username), for every command
// that names one; one that does not exist is not found (exit 1).
import { NotFoundError } from '../lib/model/errors.js';
import type { UserDoc } from '../lib/model/users.js';
import type { Store } from '../lib/store/db.js';
import { findUserByRef } from '../lib/store/users.js';

export async function userByRef(store: Store, ref: string): Promise<UserDoc> {
  const user = ref.length <= 254 ? await findUserByRef(store, ref) : null;
  if (!user) throw new NotFoundError(`no user with id, email or username ${ref}`);
  return user;
}
