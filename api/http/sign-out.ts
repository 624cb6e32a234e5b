// Signing out: the session ends (cookie cleared, sid gone) and a
// BackchannelLogout workflow tells every client the session signed into. The
// same happens to sessions ended from elsewhere (the sessions page, a
// password change). The audit trail gets `logout` for a browser signing
// itself out, `session.revoked` for sessions ended from elsewhere (an
// administrator's account changes record theirs in lib/admin/user-changes.ts).
import type { Request, Response } from 'express';
import { startBackchannelLogout } from '../../lib/flows/backchannel-logout.js';
import { endSession } from './session.js';
import { revokeSessionSudoWindows } from '../../lib/step-up/sudo-windows.js';
import { clientsOfSession, deleteSession, deleteUserSession, listUserSessions } from '../../lib/store/sessions.js';
import type { SessionDoc } from '../../lib/model/sessions.js';
import type { ApiContext } from '../context.js';
import type { AuditActor } from '../../lib/model/audit-events.js';

export type SignOutDeps = Pick<ApiContext, 'issuer' | 'flows' | 'log' | 'store' | 'secureCookies' | 'audit'>;

/** Who ended other sessions of a user, for `session.revoked`: the user (the sessions page) or an account change (a new password). */
export interface SessionRevocation {
  by: 'user' | 'admin' | 'account_change';
  actor: AuditActor;
}

/** Signs this browser out: its session ends and its cookie is cleared. `clientId`: the RP that asked (RP-initiated logout). */
export async function signOut(req: Request, res: Response, deps: SignOutDeps, clientId?: string): Promise<void> {
  const ended = await endSession(req, res, deps);
  if (!ended) return;
  if (ended.userId) {
    await deps.audit.record('logout', { actor: { type: 'user', userId: ended.userId }, subject: { userId: ended.userId }, data: { client_id: clientId } });
  }
  await sessionEnded(deps, ended);
}

/** Ends one other session of the user (by its sid, from the sessions page); the ended session, or null when it had ended already. */
export async function endOtherSession(deps: SignOutDeps, userId: string, sid: string, cause: SessionRevocation): Promise<SessionDoc | null> {
  const ended = await deleteUserSession(deps.store, userId, sid);
  if (!ended) return null;
  await deps.audit.record('session.revoked', { actor: cause.actor, subject: { userId }, data: { session_id: sid, by: cause.by } });
  await sessionEnded(deps, ended);
  return ended;
}

/**
 * What every ended session of a user gets (sign-out here, from the sessions
 * page, or with the other sessions at a password change): its sudo windows
 * end and a BackchannelLogout workflow tells the clients it signed into.
 */
export async function sessionEnded(deps: SignOutDeps, ended: SessionDoc): Promise<void> {
  if (!ended.userId) return;
  deps.log.info('signed out', { user: ended.userId });
  // Sudo windows of the ended session end too (its sid is gone, so none is reachable anyway).
  await revokeSessionSudoWindows({ store: deps.store, flows: deps.flows }, { userId: ended.userId, sid: ended.sid }).catch((err: Error) =>
    deps.log.warn('sudo windows not ended at sign-out', { error: err.message }),
  );
  const clientIds = await clientsOfSession(deps.store, ended);
  if (clientIds.length === 0) return;
  await startBackchannelLogout(deps.flows, { issuer: deps.issuer, sid: ended.sid, userId: ended.userId, clientIds });
}

/**
 * Ends the user's signed-in sessions except `keepSid` (each as at sign-out);
 * returns how many ended. `cause`: recorded as one `session.revoked` with the
 * count when any ended; null when the caller records it (an administrator's
 * account change, lib/admin/user-changes.ts, which knows the administrator).
 */
export async function endUserSessions(
  deps: SignOutDeps & { idleMs: number },
  userId: string,
  keepSid: string | null,
  cause: SessionRevocation | null,
): Promise<number> {
  let count = 0;
  // The user's sessions come from their list; each is ended by `_id`.
  for (const session of await listUserSessions(deps.store, userId, deps.idleMs)) {
    if (session.sid === keepSid) continue;
    const ended = await deleteSession(deps.store, session._id);
    if (!ended) continue;
    await sessionEnded(deps, ended);
    count++;
  }
  if (cause && count > 0) await deps.audit.record('session.revoked', { actor: cause.actor, subject: { userId }, data: { by: cause.by, count } });
  return count;
}
