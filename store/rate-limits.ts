// Fixed-window counters in MongoDB, shared by every api process: sign-in
// attempts now, challenge creation and TOTP attempts later.
import type { Store } from './db.js';

export interface RateLimitDoc {
  _id: string;
  count: number;
  expiresAt: Date;
}

export interface RateLimitResult {
  allowed: boolean;
  /** Seconds until the window ends (for Retry-After). */
  retryAfter: number;
}

const limits = (store: Store) => store.db.collection<RateLimitDoc>('rate_limits');

/**
 * Counts one event under `key`; allowed while the window holds at most `limit`
 * events. Filters on _id only (fast on FerretDB). FerretDB v1 does not make
 * $inc atomic, so concurrent events may be undercounted: a limit can be
 * exceeded by the number of requests racing at that moment, never more.
 */
export async function hitRateLimit(store: Store, key: string, limit: number, windowMs: number): Promise<RateLimitResult> {
  const now = new Date();
  let doc = await limits(store).findOneAndUpdate({ _id: key }, { $inc: { count: 1 } }, { returnDocument: 'after' });
  if (!doc || doc.expiresAt <= now) {
    doc = { _id: key, count: 1, expiresAt: new Date(now.getTime() + windowMs) };
    await limits(store).updateOne({ _id: key }, { $set: { count: 1, expiresAt: doc.expiresAt } }, { upsert: true });
  }
  return { allowed: doc.count <= limit, retryAfter: Math.max(1, Math.ceil((doc.expiresAt.getTime() - now.getTime()) / 1000)) };
}

/** Whether `key` is over its limit, without counting. */
export async function isRateLimited(store: Store, key: string, limit: number): Promise<boolean> {
  const doc = await limits(store).findOne({ _id: key });
  return !!doc && doc.expiresAt > new Date() && doc.count >= limit;
}
