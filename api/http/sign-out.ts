// Signing out: the session ends (cookie cleared, sid gone) and a
// BackchannelLogout workflow tells every client the session signed into. The
// same happens to sessions ended from elsewhere (the sessions page, a
// password change).
import type { Request, Response } from 'express';
import { startBackchannelLogout } from '../../lib/flows/backchannel-logout.js';
import { endSession } from './session.js';
import { revokeSessionSudoWindows } from '../../lib/step-up/sudo-windows.js';
import { clientsOfSession, deleteSession, listUserSessions } from '../../lib/store/sessions.js';
import type { SessionDoc } from '../../lib/model/sessions.js';
import type { ApiContext } from '../context.js';

export type SignOutDeps = Pick<ApiContext, 'issuer' | 'flows' | 'log' | 'store' | 'secureCookies'>;

/** Signs this browser out: its session ends and its cookie is cleared. */
export async function signOut(req: Request, res: Response, deps: SignOutDeps): Promise<void> {
  const ended = await endSession(req, res, deps);
  if (ended) await sessionEnded(deps, ended);
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

/** Ends the user's signed-in sessions except `keepSid` (each as at sign-out); returns how many ended. */
export async function endUserSessions(deps: SignOutDeps & { idleMs: number }, userId: string, keepSid: string | null): Promise<number> {
  let count = 0;
  // The user's sessions come from their list; each is ended by `_id`.
  for (const session of await listUserSessions(deps.store, userId, deps.idleMs)) {
    if (session.sid === keepSid) continue;
    const ended = await deleteSession(deps.store, session._id);
    if (!ended) continue;
    await sessionEnded(deps, ended);
    count++;
  }
  return count;
}
