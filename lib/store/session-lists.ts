// Lists that belong to a browser session and are read when it ends: the
// clients that got tokens for it (back-channel logout targets) and the clients
// it opened a sudo window for. FerretDB v1 finds documents by index only for a
// lone `_id`, so filtering by sid would read every session's entries; instead a
// list is numbered entries `<list>:<sid>:<n>` (n = 0, 1, …), read until the
// first one missing, and each item has a mark `<list>:<sid>|<item>` that says
// it is listed.
//
// The same collection holds each user's list of sessions (user-sessions.ts),
// read with readNumberedEntries below.
//
// Without transactions the order of writes is what keeps it right: the entry
// first (the lowest free number, claimed by a unique insert, so the numbers
// leave no gap), then the mark. An add that finds the mark has nothing to do;
// one that dies between the two has listed its item already, and a retry lists
// it again (readers drop repeats). Every document of a session's lists expires
// with the session, so the purge never leaves a gap in a live list.
import { insertIfAbsent, type Store } from './db.js';
import { processMemo } from './process-memo.js';

/** `clients`: got tokens for the session; `sudo`: had a sudo window opened in it. */
export type SessionListName = 'clients' | 'sudo';

/** Past this many items a session's list takes no more (far beyond any browser's use). */
const SESSION_LIST_LIMIT = 1000;
/** Entries read at once while reading a list, past the first. */
const READ_AHEAD = 8;

const entryId = (list: SessionListName, sid: string, n: number) => `${list}:${sid}:${n}`;
const markId = (list: SessionListName, sid: string, item: string) => `${list}:${sid}|${item}`;

/** Lists `item` in the session's `list` (already listed: one read, or none when this process listed it). */
export async function addToSessionList(store: Store, list: SessionListName, session: { sid: string; expiresAt: Date }, item: string): Promise<void> {
  const mark = markId(list, session.sid, item);
  if (listedHere.get(store, mark) || (await store.sessionLists.findOne({ _id: mark }))) return listedHere.set(store, mark, true);
  for (let n = 0; n < SESSION_LIST_LIMIT; n++) {
    if (await insertIfAbsent(store.sessionLists, { _id: entryId(list, session.sid, n), item, expiresAt: session.expiresAt })) {
      await insertIfAbsent(store.sessionLists, { _id: mark, item, expiresAt: session.expiresAt });
      return listedHere.set(store, mark, true);
    }
  }
}

/** The items of the session's `list`, each once, in the order they were listed. */
export async function readSessionList(store: Store, list: SessionListName, sid: string): Promise<string[]> {
  return [...new Set(await readNumberedEntries(store, (n) => entryId(list, sid, n), SESSION_LIST_LIMIT))];
}

/**
 * The items of numbered entries `idOf(0)`, `idOf(1)`, … up to the first one
 * missing (or `limit`), each read by `_id`: the first alone (most lists are
 * empty), then READ_AHEAD at once.
 */
export async function readNumberedEntries(store: Store, idOf: (n: number) => string, limit = Infinity): Promise<string[]> {
  const first = await store.sessionLists.findOne({ _id: idOf(0) });
  if (!first) return [];
  const items = [first.item];
  for (let from = 1; from < limit; from += READ_AHEAD) {
    const docs = await Promise.all(Array.from({ length: Math.min(READ_AHEAD, limit - from) }, (_, i) => store.sessionLists.findOne({ _id: idOf(from + i) })));
    const end = docs.findIndex((d) => d === null);
    for (const doc of end === -1 ? docs : docs.slice(0, end)) items.push(doc!.item);
    if (end !== -1) break;
  }
  return items;
}

/**
 * Marks this process wrote or read, newest last: listing the same item again
 * (a second code for the same session and client) costs nothing. Safe because
 * a mark outlives nothing it names: it expires with its session, and a sid is
 * never reused.
 */
const listedHere = processMemo<true>(10_000);
