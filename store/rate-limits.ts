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

/** Counts one event under `key`; allowed while the window holds at most `limit` events. */
export async function hitRateLimit(store: Store, key: string, limit: number, windowMs: number): Promise<RateLimitResult> {
  const now = new Date();
  let doc = await limits(store).findOneAndUpdate({ _id: key, expiresAt: { $gt: now } }, { $inc: { count: 1 } }, { returnDocument: 'after' });
  if (!doc) {
    // No live window: start one (a concurrent starter may win; then count in theirs).
    const fresh = { count: 1, expiresAt: new Date(now.getTime() + windowMs) };
    doc = await limits(store).findOneAndUpdate({ _id: key, expiresAt: { $lte: now } }, { $set: fresh }, { returnDocument: 'after' });
    if (!doc) {
      try {
        await limits(store).insertOne({ _id: key, ...fresh });
        doc = { _id: key, ...fresh };
      } catch {
        doc = await limits(store).findOneAndUpdate({ _id: key }, { $inc: { count: 1 } }, { returnDocument: 'after' });
      }
    }
  }
  const retryAfter = Math.max(1, Math.ceil(((doc?.expiresAt.getTime() ?? now.getTime()) - now.getTime()) / 1000));
  return { allowed: (doc?.count ?? 1) <= limit, retryAfter };
}

/** Whether `key` is over its limit, without counting. */
export async function isRateLimited(store: Store, key: string, limit: number): Promise<boolean> {
  const doc = await limits(store).findOne({ _id: key, expiresAt: { $gt: new Date() } });
  return (doc?.count ?? 0) >= limit;
}
