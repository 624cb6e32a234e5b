// Attempt limits: at most `max` attempts per key in each window of
// `windowMs`. A rule with `backoff` halves its capacity for every immediately
// preceding window in which the key used up its capacity (down to 1 attempt
// per window), so a sustained attack slows down instead of getting a fresh
// `max` every window — also one that stops exactly at the limit.

export interface LimitRule {
  /** Attempts allowed per window. */
  max: number;
  windowMs: number;
  /** Shrink the capacity after windows that ran out (see above). */
  backoff?: boolean;
}

/** How many preceding windows backoff looks at (capacity max/2, /4, /8, /16). */
export const BACKOFF_WINDOWS = 4;

/** The window `now` falls in: its index and its end (ms). */
export function windowOf(rule: LimitRule, now: number): { index: number; end: number } {
  const index = Math.floor(now / rule.windowMs);
  return { index, end: (index + 1) * rule.windowMs };
}

/** A window's capacity after `strikes` immediately preceding windows that ran out. */
export const backoffCapacity = (rule: LimitRule, strikes: number): number => (rule.backoff ? Math.max(1, rule.max >> strikes) : rule.max);

/** What a window's records must outlive: the window, and with backoff the later windows that look back at it. */
export const windowRecordsExpireAt = (rule: LimitRule, windowEnd: number): Date => new Date(windowEnd + (rule.backoff ? BACKOFF_WINDOWS * rule.windowMs : 0));

/** Seconds until the next window starts (at least 1): a refusal's Retry-After. */
export const retryAfterSeconds = (windowEnd: number, now: number): number => Math.max(1, Math.ceil((windowEnd - now) / 1000));

/** One record of a window: a taken slot `<key>|<window>|<slot>`, the hint `…|next`, or the mark `…|out` of a used-up window. */
export interface RateLimitDoc {
  _id: string;
  /** Only on hint documents: the first slot that may be free. */
  next?: number;
  expiresAt: Date;
}
