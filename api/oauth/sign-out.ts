// Signing out: the session ends (cookie cleared, sid gone) and a
// BackchannelLogout workflow tells every client the session signed into.
import type { Request, Response } from 'express';
import type { Client } from '@temporalio/client';
import type { Logger } from '../../runtime/log.js';
import { flowSearchAttributes } from '../../temporal/search-attributes.js';
import type { BackchannelLogoutInput } from '../../workflows/backchannel-logout.js';
import { endSession, type SessionDeps } from '../http/session.js';
import { revokeSessionSudoWindows } from '../auth/sudo.js';

export interface SignOutDeps extends SessionDeps {
  issuer: string;
  temporal: Client;
  taskQueue: string;
  log: Logger;
}

export async function signOut(req: Request, res: Response, deps: SignOutDeps): Promise<void> {
  const ended = await endSession(req, res, deps);
  if (!ended?.userId) return;
  deps.log.info('signed out', { user: ended.userId });
  // Sudo windows of the ended session end too (its sid is gone, so none is reachable anyway).
  await revokeSessionSudoWindows(deps, ended.sid).catch((err: Error) => deps.log.warn('sudo windows not ended at sign-out', { error: err.message }));
  if (ended.clientIds.length === 0) return;
  const input: BackchannelLogoutInput = { issuer: deps.issuer, sid: ended.sid, userId: ended.userId, clientIds: ended.clientIds };
  await deps.temporal.workflow.start('backchannelLogout', {
    workflowId: `logout:${ended.sid}`,
    taskQueue: deps.taskQueue,
    args: [input],
    typedSearchAttributes: flowSearchAttributes({ userId: ended.userId, state: 'sending' }),
  });
}
