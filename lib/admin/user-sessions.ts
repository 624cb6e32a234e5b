// Ending every session of a user outside the api (the operator CLI): each
// session document is deleted and a BackchannelLogout workflow tells the
// clients it signed into, as at sign-out. The api ends sessions through its
// own sign-out path, which also ends their sudo windows (unreachable anyway
// once the session's sid is gone).
import { startBackchannelLogout } from '../flows/backchannel-logout.js';
import type { FlowClient } from '../flows/flow-client.js';
import type { Store } from '../store/db.js';
import { clientsOfSession, deleteSession, listUserSessions } from '../store/sessions.js';

export async function endSessionsWithLogout(deps: { store: Store; flows: FlowClient; issuer: string; idleMs: number }, userId: string): Promise<number> {
  let count = 0;
  // The user's sessions come from their list; each is ended by `_id`.
  for (const { _id, sid } of await listUserSessions(deps.store, userId, deps.idleMs)) {
    const ended = await deleteSession(deps.store, _id);
    if (!ended) continue;
    count++;
    const clientIds = await clientsOfSession(deps.store, ended);
    if (clientIds.length > 0) await startBackchannelLogout(deps.flows, { issuer: deps.issuer, sid, userId, clientIds });
  }
  return count;
}
