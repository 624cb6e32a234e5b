// The instance keeps at least one enabled administrator: an admin cannot be
// demoted, disabled or deleted (deletion disables first) when they are the
// last one. Without transactions (FerretDB v1) a count before the change is
// not enough: two admins demoting each other would both see two. So the
// change is made, the admins counted again, and the change undone when none is
// left: of concurrent changes at least one is undone, and an admin remains.
// The residual race: a process that dies between the change and its undo.
import { ConflictError, NotFoundError } from '../model/errors.js';
import { isEnabledAdmin, type UserDoc } from '../model/users.js';
import type { Store } from '../store/db.js';
import { countEnabledAdmins, setUserFields, type AccountFields } from '../store/users.js';

const LAST_ADMIN = 'this is the last enabled administrator: make another user an administrator first';

/** Applies `change` (which sets `set` on `target`), refusing with a ConflictError when it would leave no enabled administrator. */
export async function keepingAnAdmin(store: Store, target: UserDoc, set: AccountFields, change: () => Promise<UserDoc | null>): Promise<UserDoc> {
  const losesAdmin = isEnabledAdmin(target) && !isEnabledAdmin({ ...target, ...set });
  if (losesAdmin && (await countEnabledAdmins(store)) <= 1) throw new ConflictError(LAST_ADMIN);
  const after = await change();
  if (!after) throw new NotFoundError('no such user');
  if (losesAdmin && (await countEnabledAdmins(store)) === 0) {
    const undo: AccountFields = Object.fromEntries(Object.keys(set).map((k) => [k, target[k as keyof AccountFields]]));
    await setUserFields(store, target._id, { ...undo, disabled: target.disabled === true });
    throw new ConflictError(LAST_ADMIN);
  }
  return after;
}
