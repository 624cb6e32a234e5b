// Browser sessions in MongoDB (the session model: model/sessions.ts).
import { ANONYMOUS_SESSION_TTL_MS, isIdle, lastSeen, SESSION_TTL_MS, type Acr, type SessionDoc, type SessionState } from '../model/sessions.js';
import { hashSecret, newId, newSecret } from '../security/secrets.js';
import type { Store } from './db.js';
import { addToSessionList, readSessionList } from './session-lists.js';
import { claimOnce } from './single-use.js';
import { listUserSession, userSessions } from './user-sessions.js';
import { currentDate, currentTimeMs } from '../runtime/clock.js';

// Re-exported for modules that still import these from the store.

export async function findSession(store: Store, token: string): Promise<SessionDoc | null> {
  const doc = await store.sessions.findOne({ _id: hashSecret(token) });
  return doc && doc.expiresAt > currentDate() ? doc : null;
}

/** A new session; returns the cookie token (shown to the browser only). */
export async function createSession(
  store: Store,
  auth: { userId: string; amr: string[]; acr: Acr } | null,
  state: SessionState = {},
): Promise<{ token: string; session: SessionDoc }> {
  const token = newSecret();
  const now = currentDate();
  const session: SessionDoc = {
    _id: hashSecret(token),
    sid: newId(),
    csrf: newSecret(),
    userId: auth?.userId ?? null,
    authTime: auth ? now : null,
    amr: auth?.amr ?? [],
    acr: auth?.acr ?? null,
    pending: state.pending ?? null,
    webauthnChallenge: state.webauthnChallenge ?? null,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + (auth ? SESSION_TTL_MS : ANONYMOUS_SESSION_TTL_MS)),
  };
  // Listed first: a signed-in session is never live without its user's list naming it.
  await listUserSession(store, session);
  await store.sessions.insertOne(session);
  return { token, session };
}

export async function touchSession(store: Store, id: string, at: Date): Promise<void> {
  await store.sessions.updateOne({ _id: id }, { $set: { lastSeenAt: at } });
}

/** The user's live signed-in sessions, most recently used first (through the user's list: user-sessions.ts). */
export async function listUserSessions(store: Store, userId: string, idleMs: number): Promise<SessionDoc[]> {
  const now = currentTimeMs();
  const docs = await userSessions(store, userId);
  return docs.filter((d) => !isIdle(d, idleMs, now)).sort((a, b) => lastSeen(b) - lastSeen(a));
}

/** Ends one of the user's sessions by its sid; the ended session, or null when the user has none with that sid. */
export async function deleteUserSession(store: Store, userId: string, sid: string): Promise<SessionDoc | null> {
  const session = (await userSessions(store, userId)).find((s) => s.sid === sid);
  return session ? deleteSession(store, session._id) : null;
}

export async function updateSession(store: Store, id: string, set: Partial<Omit<SessionDoc, '_id'>>): Promise<void> {
  await store.sessions.updateOne({ _id: id }, { $set: set });
}

/** Takes the WebAuthn challenge out of the session: a challenge answers one ceremony only. */
export async function takeWebauthnChallenge(store: Store, id: string): Promise<string | null> {
  const session = await store.sessions.findOne({ _id: id });
  const challenge = session?.webauthnChallenge;
  if (!challenge) return null;
  await store.sessions.updateOne({ _id: id }, { $set: { webauthnChallenge: null } });
  return (await claimOnce(store, `webauthn:${challenge}`, 10 * 60_000)) ? challenge : null;
}

/** Records that `clientId` got tokens for the session: a back-channel logout target when it ends. */
export async function addSessionClient(store: Store, session: Pick<SessionDoc, 'sid' | 'expiresAt'>, clientId: string): Promise<void> {
  await addToSessionList(store, 'clients', session, clientId);
}

/** The clients that got tokens for the session (back-channel logout targets). */
export async function clientsOfSession(store: Store, session: Pick<SessionDoc, 'sid' | 'clientIds'>): Promise<string[]> {
  return [...new Set([...(session.clientIds ?? []), ...(await readSessionList(store, 'clients', session.sid))])];
}

export async function deleteSession(store: Store, id: string): Promise<SessionDoc | null> {
  return store.sessions.findOneAndDelete({ _id: id });
}

/** A session by its sid: a scan on FerretDB v1, for tests and tools only. */
export async function findSessionBySid(store: Store, sid: string): Promise<SessionDoc | null> {
  const doc = await store.sessions.findOne({ sid });
  return doc && doc.expiresAt > currentDate() ? doc : null;
}
