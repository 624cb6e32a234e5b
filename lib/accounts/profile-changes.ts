// A user's own profile change, through the profile API or the account page:
// the store write, and `profile.updated` to the user's webhooks when something
// changed. The one place both surfaces go through.
import type { EventActor, UserEvent } from '../model/webhook-events.js';
import type { ProfileUpdate, UserDoc } from '../model/users.js';
import type { Store } from '../store/db.js';
import { updateProfile } from '../store/users.js';

export interface ProfileChangeDeps {
  store: Store;
  events: { user(name: UserEvent, userId: string, data: Record<string, unknown>, actor: EventActor): Promise<void> };
}

/** The user after the change and the fields that changed; null when the user is gone. */
export async function changeProfile(
  deps: ProfileChangeDeps,
  userId: string,
  update: ProfileUpdate,
  actor: EventActor,
): Promise<{ user: UserDoc; changed: string[] } | null> {
  const result = await updateProfile(deps.store, userId, update);
  if (result?.changed.length) await deps.events.user('profile.updated', userId, { user_id: userId, changed: result.changed }, actor);
  return result;
}
