// Sudo windows of step-up 2FA (spec "Sudo mode"): after a successful factor
// confirmation the user may opt in, and for `sudo_mode_ttl_minutes` a challenge
// of the same client, in the same browser session, is confirmed with the
// checkbox alone (method `sudo`). Bound to (user id, session sid, client id).
//
// - openSudoWindow: reads the site setting (0: sudo mode off, returns null),
//   writes the projection and starts the SudoWindow workflow (one Temporal call).
// - activeSudoWindow: the hot path; one MongoDB read by `_id`, no Temporal.
// - revokeSudoWindow: ends the window (an update: the projection says so when it returns).
// - revokeSessionSudoWindows: sign-out ends every window of the session.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { newId } from '../../lib/security/secrets.js';
import type { Store } from '../../lib/store/db.js';
import { getSiteSettings } from '../../lib/store/settings.js';
import {
  activeSudoWindowsOfSession,
  findActiveSudoWindow,
  recordSudoWindowEnded,
  recordSudoWindowOpened,
  sudoWindowId,
  type SudoWindowKey,
} from '../../lib/store/sudo-windows.js';
import { flowSearchAttributes } from '../../lib/temporal/search-attributes.js';
import { sudoRevokeSignal, sudoRevokeUpdate, type SudoWindowInput } from '../../workflows/sudo-window.js';

export { sudoWindowId, type SudoWindowKey };

export interface SudoDeps {
  store: Store;
  temporal: Client;
  taskQueue: string;
}

export interface OpenedSudoWindow {
  /** The SudoWindow workflow id (also the projection's `_id`). */
  windowId: string;
  expiresAt: Date;
}

/**
 * Opens (or reopens, from now) the sudo window of (user, session, client) for
 * `sudo_mode_ttl_minutes`. Returns null, and starts nothing, when the setting is 0.
 * `options.ttlMs` can only shorten the window (tests use a few seconds).
 */
export async function openSudoWindow(deps: SudoDeps, key: SudoWindowKey, options: { ttlMs?: number } = {}): Promise<OpenedSudoWindow | null> {
  const minutes = (await getSiteSettings(deps.store)).sudo_mode_ttl_minutes;
  if (!(minutes > 0)) return null;
  const ttlMs = Math.min(minutes * 60_000, options.ttlMs ?? Infinity);
  const windowId = sudoWindowId(key);
  const openedAt = new Date();
  const expiresAt = new Date(openedAt.getTime() + ttlMs);
  const input: SudoWindowInput = {
    windowId,
    openingId: newId(),
    userId: key.userId,
    sid: key.sid,
    clientId: key.clientId,
    expiresAt: expiresAt.getTime(),
    database: deps.store.db.databaseName,
  };
  // A window already open is replaced by this opening (its timer restarts from now).
  await deps.temporal.workflow.start('sudoWindow', {
    workflowId: windowId,
    taskQueue: deps.taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'TERMINATE_EXISTING',
    typedSearchAttributes: flowSearchAttributes({ clientId: key.clientId, userId: key.userId, state: 'active' }),
  });
  // Written after the start: should it fail, no window exists (fails closed).
  await recordSudoWindowOpened(deps.store, { _id: windowId, ...key, openingId: input.openingId, status: 'active', openedAt, expiresAt });
  return { windowId, expiresAt };
}

/** Is there an open sudo window for (user, session, client)? One read by `_id`. */
export async function activeSudoWindow(store: Store, key: SudoWindowKey): Promise<boolean> {
  return (await findActiveSudoWindow(store, key)) !== null;
}

/** Ends the window of (user, session, client); true when one was open. The projection is updated when this returns. */
export async function revokeSudoWindow(deps: SudoDeps, key: SudoWindowKey, reason = 'revoked by the user'): Promise<boolean> {
  const open = await findActiveSudoWindow(deps.store, key);
  if (!open) return false;
  try {
    const { revoked } = await deps.temporal.workflow.getHandle(open._id).executeUpdate(sudoRevokeUpdate, { args: [{ reason }] });
    if (revoked) return true;
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
  // The workflow is gone or had already ended: the projection must not outlive it.
  await recordSudoWindowEnded(deps.store, { windowId: open._id, openingId: open.openingId, status: 'revoked' });
  return true;
}

/** Sign-out: signals every open window of the session to end (the new session's sid never finds them anyway). */
export async function revokeSessionSudoWindows(deps: SudoDeps, sid: string): Promise<number> {
  const windows = await activeSudoWindowsOfSession(deps.store, sid);
  await Promise.all(
    windows.map(async (w) => {
      try {
        await deps.temporal.workflow.getHandle(w._id).signal(sudoRevokeSignal, { reason: 'signed out' });
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
        await recordSudoWindowEnded(deps.store, { windowId: w._id, openingId: w.openingId, status: 'revoked' });
      }
    }),
  );
  return windows.length;
}
