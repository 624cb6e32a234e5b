// Sudo windows of step-up 2FA ("sudo mode"): after a successful factor
// confirmation the user may opt in, and for `sudo_mode_ttl_minutes` a challenge
// of the same client, in the same browser session, is confirmed with the
// checkbox alone (method `sudo`). Bound to (user id, session sid, client id).
//
// - openSudoWindow: reads the site setting (0: sudo mode off, returns null),
//   lists the client in the session's `sudo` list, starts the SudoWindow
//   workflow (one Temporal call), writes the projection and records
//   `sudo.opened` (the workflow's activity records `sudo.ended`).
// - activeSudoWindow: the hot path; one MongoDB read by `_id`, no Temporal.
// - revokeSudoWindow: ends the window (an update: the projection says so when it returns).
// - revokeSessionSudoWindows: sign-out ends every window in the session's list.
import type { AuditTrail } from '../audit/audit-trail.js';
import type { SudoWindowKey } from '../model/sudo-window.js';
import type { FlowClient } from '../flows/flow-client.js';
import { revokeSudoWindowFlow, signalSudoWindowRevocation, startSudoWindowFlow } from '../flows/sudo-window.js';
import { newId } from '../security/secrets.js';
import type { Store } from '../store/db.js';
import { addToSessionList } from '../store/session-lists.js';
import { getSiteSettings } from '../store/settings.js';
import { activeSudoWindowsOfSession, findActiveSudoWindow, recordSudoWindowEnded, recordSudoWindowOpened } from '../store/sudo-windows.js';
import { sudoWindowId } from '../model/sudo-window-id.js';
import { currentDate } from '../runtime/clock.js';

export interface SudoDeps {
  store: Store;
  flows: FlowClient;
}

export interface OpenedSudoWindow {
  /** The SudoWindow workflow id (also the projection's `_id`). */
  windowId: string;
  expiresAt: Date;
}

/**
 * Opens (or reopens, from now) the sudo window of (user, session, client) for
 * `sudo_mode_ttl_minutes`, listed in the session's `sudo` list (which expires
 * with the session, at `sessionExpiresAt`). Returns null, and starts nothing, when the setting is 0.
 * `options.ttlMs` can only shorten the window (tests use a few seconds).
 */
export async function openSudoWindow(
  deps: SudoDeps & { audit: Pick<AuditTrail, 'record'> },
  key: SudoWindowKey,
  sessionExpiresAt: Date,
  options: { ttlMs?: number } = {},
): Promise<OpenedSudoWindow | null> {
  const minutes = (await getSiteSettings(deps.store)).sudo_mode_ttl_minutes;
  if (!(minutes > 0)) return null;
  // In the session's list first: should that fail, no window opens, and sign-out finds every window that does.
  await addToSessionList(deps.store, 'sudo', { sid: key.sid, expiresAt: sessionExpiresAt }, key.clientId);
  const ttlMs = Math.min(minutes * 60_000, options.ttlMs ?? Infinity);
  const windowId = sudoWindowId(key);
  const openedAt = currentDate();
  const expiresAt = new Date(openedAt.getTime() + ttlMs);
  const openingId = newId();
  // A window already open is replaced by this opening (its timer restarts from now).
  await startSudoWindowFlow(deps.flows, {
    windowId,
    openingId,
    userId: key.userId,
    sid: key.sid,
    clientId: key.clientId,
    expiresAt: expiresAt.getTime(),
  });
  // Written after the start: should it fail, no window exists (fails closed).
  await recordSudoWindowOpened(deps.store, { _id: windowId, ...key, openingId, status: 'active', openedAt, expiresAt });
  // Its end is recorded by the workflow's activity (sudo.ended).
  await deps.audit.record('sudo.opened', {
    actor: { type: 'user', userId: key.userId },
    subject: { userId: key.userId, clientId: key.clientId },
    data: { client_id: key.clientId, seconds: Math.round(ttlMs / 1000) },
  });
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
  const answer = await revokeSudoWindowFlow(deps.flows, open._id, { reason });
  if (!answer.ended && answer.value.revoked) return true;
  // The workflow is gone or had already ended: the projection must not outlive it.
  await recordSudoWindowEnded(deps.store, { windowId: open._id, openingId: open.openingId, status: 'revoked' });
  return true;
}

/** Sign-out: signals every open window of the session to end (the new session's sid never finds them anyway). */
export async function revokeSessionSudoWindows(deps: SudoDeps, session: { userId: string; sid: string }): Promise<number> {
  const windows = await activeSudoWindowsOfSession(deps.store, session);
  await Promise.all(
    windows.map(async (w) => {
      const signalled = await signalSudoWindowRevocation(deps.flows, w._id, { reason: 'signed out' });
      if (signalled.ended) await recordSudoWindowEnded(deps.store, { windowId: w._id, openingId: w.openingId, status: 'revoked' });
    }),
  );
  return windows.length;
}
