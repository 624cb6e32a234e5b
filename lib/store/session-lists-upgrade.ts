// The upgrade from earlier versions, whose sign-out filtered by sid (a scan on
// FerretDB v1), to the session lists of session-lists.ts:
// - `session_clients` (one document per session and client) is copied into
//   the sessions' `clients` lists, then dropped;
// - the sudo windows still active are listed in their sessions' `sudo` lists,
//   once (then a mark says it is done).
// - the signed-in sessions are listed in their users' lists (user-sessions.ts),
//   once (then a mark).
// All are idempotent (listing an item again does nothing, or lists a session
// twice, which readers drop), so every start runs them and one interrupted
// half-way is finished by the next.
import { SESSION_TTL_MS } from '../domain/sessions.js';
import { insertIfAbsent, type Store } from './db.js';
import { addToSessionList } from './session-lists.js';
import { listUserSession } from './user-sessions.js';

/** Copies earlier versions' session clients into the sessions' lists; answers how many. */
export async function moveLegacySessionClients(store: Store): Promise<number> {
  const legacy = await store.legacySessionClients();
  if (!legacy) return 0;
  let moved = 0;
  const now = new Date();
  for await (const doc of legacy.find({ expiresAt: { $gt: now } })) {
    await addToSessionList(store, 'clients', doc, doc.clientId);
    moved++;
  }
  // False, not an error, when another process starting at the same time dropped it first.
  await legacy.drop();
  return moved;
}

/**
 * Runs a step once per database: `mark` (an `_id` no list uses, never
 * expiring) says it is done. A start interrupted before the mark runs it again.
 */
async function once(store: Store, mark: string, step: () => Promise<number>): Promise<number> {
  if (await store.sessionLists.findOne({ _id: mark })) return 0;
  const done = await step();
  await insertIfAbsent(store.sessionLists, { _id: mark, item: '', expiresAt: new Date(8.64e15) });
  return done;
}

/** Lists the sudo windows that were active at the upgrade in their sessions' lists; answers how many. */
export function listActiveSudoWindows(store: Store): Promise<number> {
  return once(store, 'upgraded:sudo:v1', async () => {
    let listed = 0;
    const now = new Date();
    for await (const w of store.sudoWindows.find({ status: 'active', expiresAt: { $gt: now } })) {
      // The session's own expiry is not in the window; a session ends at most SESSION_TTL_MS after the
      // window was opened in it, so the entry outlives it, and never leaves a gap in a live list.
      await addToSessionList(store, 'sudo', { sid: w.sid, expiresAt: new Date(w.openedAt.getTime() + SESSION_TTL_MS) }, w.clientId);
      listed++;
    }
    return listed;
  });
}

/** Lists the signed-in sessions that were live at the upgrade in their users' lists; answers how many. */
export function listSignedInSessions(store: Store): Promise<number> {
  return once(store, 'upgraded:user-sessions:v1', async () => {
    let listed = 0;
    const now = new Date();
    for await (const session of store.sessions.find({}, { projection: { _id: 1, userId: 1, createdAt: 1, expiresAt: 1 } })) {
      if (!session.userId || session.expiresAt <= now) continue;
      await listUserSession(store, session);
      listed++;
    }
    return listed;
  });
}
