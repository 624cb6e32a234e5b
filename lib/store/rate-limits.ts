// Attempt limits that hold under parallel requests, on FerretDB v1 as on
// MongoDB. A window of `max` attempts is `max` slots; an attempt takes a slot
// by inserting the document `<key>|<window>|<slot>`, and a duplicate `_id`
// fails atomically, so at most `max` attempts ever hold a slot in a window,
// however many race (a `$inc` counter is not atomic on FerretDB v1: 40
// parallel requests were all counted under a limit of 10). Callers take the
// slot *before* verifying anything, and may give it back afterwards (a correct
// password does not count as a failure). The rules themselves (windows,
// backoff): model/rate-limits.ts.
import { createHash } from 'node:crypto';
import {
  backoffCapacity,
  BACKOFF_WINDOWS,
  retryAfterSeconds,
  windowOf,
  windowRecordsExpireAt,
  type LimitRule,
  type RateLimitDoc,
} from '../model/rate-limits.js';
import { insertIfAbsent, isDuplicateKeyError, type Store } from './db.js';
import { currentTimeMs } from '../runtime/clock.js';

// Re-exported for modules that still import these from the store.

export interface Attempt {
  /** Gives the slot back (e.g. the attempt succeeded and should not count as a failure). */
  release(): Promise<void>;
}

export type AttemptResult = { allowed: true; attempt: Attempt } | { allowed: false; retryAfter: number };

// Keys carry emails and addresses: stored hashed, so the collection holds no personal data.
const hashKey = (key: string) => createHash('sha256').update(key).digest('base64url').slice(0, 32);

/** Per process and database: the next slot to try per window, and backoff of past windows (which no longer change). */
const localNext = new Map<string, number>();
const pastStrikes = new Map<string, boolean>();
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size > 20_000) map.clear();
  map.set(key, value);
}

const insertOnce = (store: Store, doc: RateLimitDoc): Promise<boolean> => insertIfAbsent(store.rateLimits, doc);

async function struck(store: Store, hashed: string, index: number): Promise<boolean> {
  const id = `${hashed}|${index}|out`;
  const cacheKey = `${store.db.databaseName}|${id}`;
  const cached = pastStrikes.get(cacheKey);
  if (cached !== undefined) return cached;
  const out = (await store.rateLimits.findOne({ _id: id })) !== null;
  remember(pastStrikes, cacheKey, out);
  return out;
}

async function capacity(store: Store, hashed: string, index: number, rule: LimitRule): Promise<number> {
  if (!rule.backoff) return rule.max;
  let strikes = 0;
  while (strikes < BACKOFF_WINDOWS && (await struck(store, hashed, index - strikes - 1))) strikes++;
  return backoffCapacity(rule, strikes);
}

/**
 * Takes one of the window's slots for `key`, or reports when the next window
 * starts. Count first, verify second: an attempt refused here must not be
 * verified at all.
 */
export async function takeAttempt(store: Store, key: string, rule: LimitRule, now = currentTimeMs()): Promise<AttemptResult> {
  const hashed = hashKey(key);
  const win = windowOf(rule, now);
  const prefix = `${hashed}|${win.index}`;
  const expiresAt = windowRecordsExpireAt(rule, win.end);
  const max = await capacity(store, hashed, win.index, rule);
  const local = `${store.db.databaseName}|${prefix}`;
  const take = async (slot: number, contiguous: boolean, consultedHint: boolean): Promise<AttemptResult> => {
    remember(localNext, local, slot + 1);
    // The last slot with every lower one held: the window is used up (backoff also for an attacker who
    // stops exactly at the limit). Reached after a jump (a parallel burst's hint), the lower slots are
    // looked at, since a released one may be free again.
    if (rule.backoff && slot === max - 1 && (contiguous || (await lowerSlotsHeld(store, prefix, slot))))
      await insertOnce(store, { _id: `${prefix}|out`, expiresAt });
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
      const hint = await store.rateLimits.findOne({ _id: `${prefix}|next` });
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
  return { allowed: false, retryAfter: retryAfterSeconds(win.end, now) };
}

/** Whether every slot below `slot` of the window is taken (one lookup by `_id` each; only for a window's last slot). */
async function lowerSlotsHeld(store: Store, prefix: string, slot: number): Promise<boolean> {
  for (let s = slot - 1; s >= 0; s--) if ((await store.rateLimits.findOne({ _id: `${prefix}|${s}` }, { projection: { _id: 1 } })) === null) return false;
  return true;
}

/** The shared hint: the first slot that may be free. Best effort (two first upserts may collide on FerretDB v1). */
async function setHint(store: Store, prefix: string, next: number, expiresAt: Date): Promise<void> {
  await store.rateLimits.updateOne({ _id: `${prefix}|next` }, { $set: { next, expiresAt } }, { upsert: true }).catch((err: unknown) => {
    if (!isDuplicateKeyError(err)) throw err;
  });
}

async function release(store: Store, prefix: string, local: string, slot: number, expiresAt: Date): Promise<void> {
  await store.rateLimits.deleteOne({ _id: `${prefix}|${slot}` });
  // The freed slot is the first to try again, here and (through the hint) in other processes.
  const next = localNext.get(local);
  if (next !== undefined && slot < next) remember(localNext, local, slot);
  const hint = await store.rateLimits.findOne({ _id: `${prefix}|next` });
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
export async function hasReached(store: Store, key: string, rule: LimitRule, count: number, now = currentTimeMs()): Promise<boolean> {
  if (count <= 0) return true;
  const prefix = `${hashKey(key)}|${windowOf(rule, now).index}`;
  return (await store.rateLimits.findOne({ _id: `${prefix}|${count - 1}` })) !== null;
}
