// The projection of sudo windows (step-up 2FA "don't ask again for N minutes")
// that the hot path reads without asking Temporal: one document per window,
// `_id` = the SudoWindow workflow id, which is derived from (user, session,
// client). The api writes it when it opens a window; the workflow's
// activities write its end (TTL elapsed, revoked).
import type { Collection } from 'mongodb';
import type { SudoWindowDoc, SudoWindowKey, SudoWindowState } from '../model/sudo-window.js';
import { sudoWindowId } from '../model/sudo-window-id.js';
import type { Store } from './db.js';
import { readSessionList } from './session-lists.js';
import { currentDate } from '../runtime/clock.js';

/** The document of this collection, defined with the flow's other types. */

export function sudoWindows(store: Store): Collection<SudoWindowDoc> {
  return store.sudoWindows;
}

/** The window as the api opened it (replacing an earlier opening of the same window). */
export async function recordSudoWindowOpened(store: Store, doc: SudoWindowDoc): Promise<void> {
  await sudoWindows(store).replaceOne({ _id: doc._id }, doc, { upsert: true });
}

/** The hot path: a lookup by `_id` only (FerretDB v1), then status and expiry checked here. */
export async function findActiveSudoWindow(store: Store, key: SudoWindowKey): Promise<SudoWindowDoc | null> {
  const doc = await sudoWindows(store).findOne({ _id: sudoWindowId(key) });
  return doc && doc.status === 'active' && doc.expiresAt > currentDate() ? doc : null;
}

/**
 * Records the end of one opening (a later opening of the same window is left
 * alone). Read, then written by `_id` alone: FerretDB v1 would read every
 * window for `{_id, openingId, status}`, and its conditional update is no more
 * atomic than this. A reopening that lands between the two is ended with this
 * one, which fails closed: the user confirms with a factor again. Returns
 * the window as ended, or null when this opening was no longer active.
 */
export async function recordSudoWindowEnded(
  store: Store,
  { windowId, openingId, status }: { windowId: string; openingId: string; status: Exclude<SudoWindowState, 'active'> },
): Promise<SudoWindowDoc | null> {
  const doc = await sudoWindows(store).findOne({ _id: windowId });
  if (doc?.openingId !== openingId || doc.status !== 'active') return null;
  const endedAt = currentDate();
  await sudoWindows(store).updateOne({ _id: windowId }, { $set: { status, endedAt } });
  return { ...doc, status, endedAt };
}

/** The active windows of a session: those of the clients in its `sudo` list, each read by `_id`. */
export async function activeSudoWindowsOfSession(store: Store, session: { userId: string; sid: string }): Promise<SudoWindowDoc[]> {
  const clientIds = await readSessionList(store, 'sudo', session.sid);
  const windows = await Promise.all(clientIds.map((clientId) => findActiveSudoWindow(store, { ...session, clientId })));
  return windows.filter((w) => w !== null);
}
