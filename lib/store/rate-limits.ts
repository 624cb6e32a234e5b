// Attempt limits that hold under parallel requests, on FerretDB v1 as on
// MongoDB. A window of `max` attempts is `max` slots; an attempt takes a slot
// by inserting the document `<key>|<window>|<slot>`, and a duplicate `_id`
// fails atomically, so at most `max` attempts ever hold a slot in a window,
// however many race (a `$inc` counter is not atomic on FerretDB v1: 40
// parallel requests were all counted under a limit of 10). Callers take the
// slot *before* verifying anything, and may give it back afterwards (a correct
// password does not count as a failure).
//
// Backoff: a rule with `backoff` halves its capacity for every immediately
// preceding window in which the key used up its capacity (down to 1 attempt
// per window), so a sustained attack slows down instead of getting a fresh
// `max` every window — also one that stops exactly at the limit.
import { createHash } from 'node:crypto';
import { isDuplicateKeyError, type Store } from './db.js';

export interface LimitRule {
  /** Attempts allowed per window. */
  max: number;
  windowMs: number;
  /** Shrink the capacity after windows that ran out (see above). */
  backoff?: boolean;
}

export interface Attempt {
  /** Gives the slot back (e.g. the attempt succeeded and should not count as a failure). */
  release(): Promise<void>;
}

export type AttemptResult = { allowed: true; attempt: Attempt } | { allowed: false; retryAfter: number };

/** How many preceding windows backoff looks at (capacity max/2, /4, /8, /16). */
const BACKOFF_WINDOWS = 4;

interface LimitDoc {
  _id: string;
  /** Only on hint documents: the first slot that may be free. */
  next?: number;
  expiresAt: Date;
}

const collection = (store: Store) => store.db.collection<LimitDoc>('rate_limits');

// Keys carry emails and addresses: stored hashed, so the collection holds no personal data.
const hashKey = (key: string) => createHash('sha256').update(key).digest('base64url').slice(0, 32);

/** Per process and database: the next slot to try per window, and backoff of past windows (which no longer change). */
const localNext = new Map<string, number>();
const pastStrikes = new Map<string, boolean>();
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size > 20_000) map.clear();
  map.set(key, value);
}

function windowOf(rule: LimitRule, now: number) {
  const index = Math.floor(now / rule.windowMs);
  return { index, end: (index + 1) * rule.windowMs };
}

async function insertOnce(store: Store, doc: LimitDoc): Promise<boolean> {
  try {
    await collection(store).insertOne(doc);
    return true;
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
}

async function struck(store: Store, hashed: string, index: number): Promise<boolean> {
  const id = `${hashed}|${index}|out`;
  const cacheKey = `${store.db.databaseName}|${id}`;
  const cached = pastStrikes.get(cacheKey);
  if (cached !== undefined) return cached;
  const out = (await collection(store).findOne({ _id: id })) !== null;
  remember(pastStrikes, cacheKey, out);
  return out;
}

async function capacity(store: Store, hashed: string, index: number, rule: LimitRule): Promise<number> {
  if (!rule.backoff) return rule.max;
  let strikes = 0;
  while (strikes < BACKOFF_WINDOWS && (await struck(store, hashed, index - strikes - 1))) strikes++;
  return Math.max(1, rule.max >> strikes);
}

/**
 * Takes one of the window's slots for `key`, or reports when the next window
 * starts. Count first, verify second: an attempt refused here must not be
 * verified at all.
 */
export async function takeAttempt(store: Store, key: string, rule: LimitRule, now = Date.now()): Promise<AttemptResult> {
  const hashed = hashKey(key);
  const win = windowOf(rule, now);
  const prefix = `${hashed}|${win.index}`;
  const expiresAt = new Date(win.end + (rule.backoff ? BACKOFF_WINDOWS * rule.windowMs : 0));
  const max = await capacity(store, hashed, win.index, rule);
  const local = `${store.db.databaseName}|${prefix}`;
  const take = async (slot: number, contiguous: boolean, consultedHint: boolean): Promise<AttemptResult> => {
    remember(localNext, local, slot + 1);
    // The last slot, reached past every lower one: the window is used up (backoff also for an attacker who stops exactly at the limit).
    if (rule.backoff && contiguous && slot === max - 1) await insertOnce(store, { _id: `${prefix}|out`, expiresAt });
    // Another process (or this one after a restart) starts from the hint instead of 0.
    if (consultedHint || slot % 8 === 7) await setHint(store, prefix, slot + 1, expiresAt);
    return { allowed: true, attempt: { release: () => release(store, prefix, local, slot, expiresAt) } };
  };

  let slot = localNext.get(local) ?? 0;
  let consultedHint = false;
  let jumped = false;
  while (slot < max) {
    if (await insertOnce(store, { _id: `${prefix}|${slot}`, expiresAt })) return take(slot, !jumped, consultedHint);
    slot++;
    if (!consultedHint) {
      consultedHint = true;
      const hint = await collection(store).findOne({ _id: `${prefix}|next` });
      if (hint?.next && hint.next > slot) {
        slot = hint.next;
        jumped = true;
      }
    }
  }
  // The hint is a shortcut, not the truth: slots released below it (by another process) are
  // free again. Before refusing, look at every slot once; a held one costs a failed insert.
  if (jumped) {
    for (let s = 0; s < max; s++) if (await insertOnce(store, { _id: `${prefix}|${s}`, expiresAt })) return take(s, false, true);
  }
  if (rule.backoff) await insertOnce(store, { _id: `${prefix}|out`, expiresAt });
  return { allowed: false, retryAfter: Math.max(1, Math.ceil((win.end - now) / 1000)) };
}

/** The shared hint: the first slot that may be free. Best effort (two first upserts may collide on FerretDB v1). */
async function setHint(store: Store, prefix: string, next: number, expiresAt: Date): Promise<void> {
  await collection(store)
    .updateOne({ _id: `${prefix}|next` }, { $set: { next, expiresAt } }, { upsert: true })
    .catch((err: unknown) => {
      if (!isDuplicateKeyError(err)) throw err;
    });
}

async function release(store: Store, prefix: string, local: string, slot: number, expiresAt: Date): Promise<void> {
  await collection(store).deleteOne({ _id: `${prefix}|${slot}` });
  // The freed slot is the first to try again, here and (through the hint) in other processes.
  const next = localNext.get(local);
  if (next !== undefined && slot < next) remember(localNext, local, slot);
  const hint = await collection(store).findOne({ _id: `${prefix}|next` });
  if (hint?.next !== undefined && slot < hint.next) await setHint(store, prefix, slot, expiresAt);
}

/**
 * Takes a slot under every rule, all or nothing: refused by one, the slots
 * already taken are given back, so a request refused by (say) the per-IP
 * limit does not use up the account's attempts.
 */
export async function takeAttempts(store: Store, limits: ReadonlyArray<readonly [key: string, rule: LimitRule]>): Promise<AttemptResult> {
  const taken: Attempt[] = [];
  for (const [key, rule] of limits) {
    const result = await takeAttempt(store, key, rule);
    if (!result.allowed) {
      await Promise.all(taken.map((a) => a.release()));
      return result;
    }
    taken.push(result.attempt);
  }
  return { allowed: true, attempt: { release: async () => void (await Promise.all(taken.map((a) => a.release()))) } };
}

/** Whether `key` has taken at least `count` slots in the current window (one read; for thresholds such as "captcha after 3 failures"). */
export async function hasReached(store: Store, key: string, rule: LimitRule, count: number, now = Date.now()): Promise<boolean> {
  if (count <= 0) return true;
  const prefix = `${hashKey(key)}|${windowOf(rule, now).index}`;
  return (await collection(store).findOne({ _id: `${prefix}|${count - 1}` })) !== null;
}
