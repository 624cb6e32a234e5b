// Which sessions a user is signed in with, found without filtering `sessions`
// by `userId` (FerretDB v1 reads every session for that: measured, 5.3 s at
// 100,000 sessions). The sessions page, a password change and "sign out
// everywhere" read it, and each must find every live session.
//
// A signed-in session is listed in its user's list of the day it began
// (`user:<user id>:<day>:<n>` in `session_lists`, n = 0, 1, … claimed by
// unique inserts), before its document is written: a session is never live
// unlisted, and an entry whose session was never written or has ended is
// skipped by readers. Sessions last SESSION_TTL_MS from sign-in, so a reader
// looks at the days that can still hold a live one (one more on each side for
// clocks that disagree), each read from 0 until the first entry missing. Every
// entry of a day expires at once, after the last session that day can hold, so
// the purge never leaves a gap in a day still read.
import { SESSION_TTL_MS, type SessionDoc } from '../model/sessions.js';
import { insertIfAbsent, type Store } from './db.js';
import { inChunks } from './in-chunks.js';
import { processMemo } from './process-memo.js';
import { readNumberedEntries } from './session-lists.js';
import { currentDate } from '../runtime/clock.js';

const DAY_MS = 86_400_000;
/** The days a live session can have begun on (today and ceil(TTL) days back), plus one on each side for clock skew. */
const DAYS_READ = Math.ceil(SESSION_TTL_MS / DAY_MS) + 3;
/** Sessions read at once when a list is resolved. */
const SESSIONS_AT_ONCE = 16;

const dayOf = (at: Date) => Math.floor(at.getTime() / DAY_MS);
const entryId = (userId: string, day: number, n: number) => `user:${userId}:${day}:${n}`;
/** Past the end of the last session that can begin on `day`. */
const dayExpiry = (day: number) => new Date((day + 1) * DAY_MS + SESSION_TTL_MS);

/** Lists a signed-in session in its user's list (before its document is written). */
export async function listUserSession(store: Store, session: Pick<SessionDoc, '_id' | 'userId' | 'createdAt'>): Promise<void> {
  if (!session.userId) return;
  const day = dayOf(session.createdAt);
  const key = `${session.userId}:${day}`;
  // Every number below the last one this process claimed is taken, so it starts past it.
  for (let n = nextFree.get(store, key) ?? 0; ; n++) {
    if (await insertIfAbsent(store.sessionLists, { _id: entryId(session.userId, day, n), item: session._id, expiresAt: dayExpiry(day) })) {
      nextFree.set(store, key, n + 1);
      return;
    }
  }
}

/** The user's live sessions (their documents, whatever their idle state), each once. */
export async function userSessions(store: Store, userId: string, now = currentDate()): Promise<SessionDoc[]> {
  const today = dayOf(now);
  const days = Array.from({ length: DAYS_READ }, (_, k) => today + 1 - k);
  const ids = new Set((await Promise.all(days.map((day) => dayEntries(store, userId, day)))).flat());
  const docs = await inChunks([...ids], SESSIONS_AT_ONCE, (_id) => store.sessions.findOne({ _id }));
  return docs.filter((doc): doc is SessionDoc => doc !== null && doc.userId === userId && doc.expiresAt > now);
}

/** The session ids listed on one day. */
const dayEntries = (store: Store, userId: string, day: number) => readNumberedEntries(store, (n) => entryId(userId, day, n));

/** Where this process's next claim in a (user, day) list starts. */
const nextFree = processMemo<number>(10_000);
