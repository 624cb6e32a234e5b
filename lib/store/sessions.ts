// Browser sessions. The cookie carries a 256-bit random token; MongoDB keeps
// only its hash. `sid` is the public session id (ID tokens, logout tokens):
// a new session, with a new token and a new sid, begins at every sign-in and
// sign-out, so a session fixed before sign-in is worthless after it.
import { hashSecret, newId, newSecret } from '../security/secrets.js';
import { isDuplicateKeyError, type Store } from './db.js';
import { claimOnce } from './single-use.js';

export type Acr = 'pwd' | 'mfa';

export interface PendingSignIn {
  userId: string;
  /** Factors already proven (e.g. ['pwd']): a second factor completes the sign-in. */
  amr: string[];
  at: Date;
}

export interface SessionDoc {
  _id: string; // hash of the cookie token
  sid: string;
  /** Synchronizer token for this session's forms (compared in constant time). */
  csrf: string;
  userId: string | null;
  authTime: Date | null;
  amr: string[];
  acr: Acr | null;
  pending: PendingSignIn | null;
  /** Expected challenge of a WebAuthn ceremony in progress. */
  webauthnChallenge: string | null;
  /**
   * Clients of sessions stored before `session_clients` existed. New sessions
   * keep their clients there (see addSessionClient), never in this document.
   */
  clientIds?: string[];
  createdAt: Date;
  /** The last request of a signed-in session, written at most once a minute (idle timeout). */
  lastSeenAt: Date;
  expiresAt: Date;
}

/** What a step before sign-in keeps in a session. */
export type SessionState = Partial<Pick<SessionDoc, 'pending' | 'webauthnChallenge'>>;

/** Sessions last 14 days from sign-in; anonymous (pre-sign-in) ones 1 hour. */
export const SESSION_TTL_MS = 14 * 24 * 3600_000;
const ANONYMOUS_TTL_MS = 3600_000;

const sessions = (store: Store) => store.sessions;

export async function findSession(store: Store, token: string): Promise<SessionDoc | null> {
  const doc = await sessions(store).findOne({ _id: hashSecret(token) });
  return doc && doc.expiresAt > new Date() ? doc : null;
}

/** A new session; returns the cookie token (shown to the browser only). */
export async function createSession(
  store: Store,
  auth: { userId: string; amr: string[]; acr: Acr } | null,
  state: SessionState = {},
): Promise<{ token: string; session: SessionDoc }> {
  const token = newSecret();
  const now = new Date();
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
    expiresAt: new Date(now.getTime() + (auth ? SESSION_TTL_MS : ANONYMOUS_TTL_MS)),
  };
  await sessions(store).insertOne(session);
  return { token, session };
}

/** When a session was last used, in ms (sessions stored before lastSeenAt: their creation). */
export const lastSeen = (session: Pick<SessionDoc, 'lastSeenAt' | 'createdAt'>): number => (session.lastSeenAt ?? session.createdAt).getTime();

/** True when a signed-in session went unused for longer than `idleMs`: it is over. */
export const isIdle = (session: Pick<SessionDoc, 'userId' | 'lastSeenAt' | 'createdAt'>, idleMs: number, now = Date.now()): boolean =>
  session.userId !== null && now - lastSeen(session) > idleMs;

export async function touchSession(store: Store, id: string, at: Date): Promise<void> {
  await sessions(store).updateOne({ _id: id }, { $set: { lastSeenAt: at } });
}

/** The user's live signed-in sessions, most recently used first (filters on userId: pages only, not a hot path). */
export async function listUserSessions(store: Store, userId: string, idleMs: number): Promise<SessionDoc[]> {
  const now = Date.now();
  const docs = await sessions(store).find({ userId }, { limit: 1000 }).toArray();
  return docs.filter((d) => d.expiresAt.getTime() > now && !isIdle(d, idleMs, now)).sort((a, b) => lastSeen(b) - lastSeen(a));
}

/** Ends one of the user's sessions by its sid; the ended session, or null when the user has none with that sid. */
export async function deleteUserSession(store: Store, userId: string, sid: string): Promise<SessionDoc | null> {
  return sessions(store).findOneAndDelete({ sid, userId });
}

export async function updateSession(store: Store, id: string, set: Partial<Omit<SessionDoc, '_id'>>): Promise<void> {
  await sessions(store).updateOne({ _id: id }, { $set: set });
}

/** Takes the WebAuthn challenge out of the session: a challenge answers one ceremony only. */
export async function takeWebauthnChallenge(store: Store, id: string): Promise<string | null> {
  const session = await sessions(store).findOne({ _id: id });
  const challenge = session?.webauthnChallenge;
  if (!challenge) return null;
  await sessions(store).updateOne({ _id: id }, { $set: { webauthnChallenge: null } });
  return (await claimOnce(store, `webauthn:${challenge}`, 10 * 60_000)) ? challenge : null;
}

/** A client that received tokens for a session: a back-channel logout target. */
interface SessionClientDoc {
  _id: string;
  sid: string;
  clientId: string;
  expiresAt: Date;
}
const sessionClients = (store: Store) => store.db.collection<SessionClientDoc>('session_clients');

/**
 * Records that `clientId` got tokens for the session. One insert per (sid,
 * client) into a collection of its own: an update of the session document
 * could be lost to the session's own `lastSeenAt` write (FerretDB v1 rewrites
 * the whole document on every update), and filtering sessions by sid scans them.
 */
export async function addSessionClient(store: Store, session: Pick<SessionDoc, 'sid' | 'expiresAt'>, clientId: string): Promise<void> {
  try {
    await sessionClients(store).insertOne({ _id: `${session.sid}|${clientId}`, sid: session.sid, clientId, expiresAt: session.expiresAt });
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
  }
}

/** The clients that got tokens for the session (back-channel logout targets). */
export async function clientsOfSession(store: Store, session: Pick<SessionDoc, 'sid' | 'clientIds'>): Promise<string[]> {
  const recorded = await sessionClients(store).find({ sid: session.sid }, { limit: 1000 }).toArray();
  return [...new Set([...(session.clientIds ?? []), ...recorded.map((c) => c.clientId)])];
}

export async function deleteSession(store: Store, id: string): Promise<SessionDoc | null> {
  return sessions(store).findOneAndDelete({ _id: id });
}

export async function findSessionBySid(store: Store, sid: string): Promise<SessionDoc | null> {
  const doc = await sessions(store).findOne({ sid });
  return doc && doc.expiresAt > new Date() ? doc : null;
}
