// Browser sessions. The cookie carries a 256-bit random token; the session
// document is stored under its hash. `sid` is the public session id (ID
// tokens, logout tokens): a new session, with a new token and a new sid,
// begins at every sign-in and sign-out, so a session fixed before sign-in is
// worthless after it.
import { currentTimeMs } from '../runtime/clock.js';

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
   * Clients of sessions stored before sessions had lists of their own. New
   * sessions keep their clients in their `clients` list, never in this document.
   */
  clientIds?: string[];
  createdAt: Date;
  /** The last request of a signed-in session, written at most once a minute (idle timeout). */
  lastSeenAt: Date;
  expiresAt: Date;
}

/**
 * A document of a session's lists (store/session-lists.ts): a numbered entry
 * or an item's mark, expiring with the session.
 */
export interface SessionListDoc {
  _id: string; // `<list>:<sid>:<n>` (entry) or `<list>:<sid>|<item>` (mark)
  item: string;
  expiresAt: Date;
}

/** What a step before sign-in keeps in a session. */
export type SessionState = Partial<Pick<SessionDoc, 'pending' | 'webauthnChallenge'>>;

/** Sessions last 14 days from sign-in; anonymous (pre-sign-in) ones 1 hour. */
export const SESSION_TTL_MS = 14 * 24 * 3600_000;
export const ANONYMOUS_SESSION_TTL_MS = 3600_000;

/** When a session was last used, in ms (sessions stored before lastSeenAt: their creation). */
export const lastSeen = (session: Pick<SessionDoc, 'lastSeenAt' | 'createdAt'>): number => (session.lastSeenAt ?? session.createdAt).getTime();

/** True when a signed-in session went unused for longer than `idleMs`: it is over. */
export const isIdle = (session: Pick<SessionDoc, 'userId' | 'lastSeenAt' | 'createdAt'>, idleMs: number, now = currentTimeMs()): boolean =>
  session.userId !== null && now - lastSeen(session) > idleMs;
