// Attempt limits: the window an attempt falls in, how backoff shrinks the
// capacity after windows that ran out, how long a window's records must live,
// and the Retry-After of a refusal.
import { BACKOFF_WINDOWS, backoffCapacity, retryAfterSeconds, windowOf, windowRecordsExpireAt } from '../../../lib/model/rate-limits.js';

const MINUTE = 60_000;
const rule = { max: 16, windowMs: MINUTE, backoff: true };
const plain = { max: 16, windowMs: MINUTE };

describe('windowOf', () => {
  it('puts every instant in one window of the rule, the end exclusive', () => {
    expect(windowOf(rule, 0)).toEqual({ index: 0, end: MINUTE });
    expect(windowOf(rule, MINUTE - 1)).toEqual({ index: 0, end: MINUTE });
    expect(windowOf(rule, MINUTE)).toEqual({ index: 1, end: 2 * MINUTE });
    const now = Date.parse('2025-01-01T00:00:30Z');
    expect(windowOf(rule, now).end - now).toBe(30_000);
  });
});

describe('backoffCapacity', () => {
  it('halves per used-up window before, down to one attempt, looking back BACKOFF_WINDOWS windows', () => {
    expect(BACKOFF_WINDOWS).toBe(4);
    expect(Array.from({ length: BACKOFF_WINDOWS + 2 }, (_, strikes) => backoffCapacity(rule, strikes))).toEqual([16, 8, 4, 2, 1, 1]);
    expect(backoffCapacity({ ...rule, max: 3 }, 1)).toBe(1);
    expect(backoffCapacity({ ...rule, max: 1 }, 0)).toBe(1);
  });

  it('gives a rule without backoff its full capacity every window', () => {
    expect([0, 1, 4].map((strikes) => backoffCapacity(plain, strikes))).toEqual([16, 16, 16]);
    expect(backoffCapacity({ ...rule, backoff: false }, 3)).toBe(16);
  });
});

describe('windowRecordsExpireAt', () => {
  it('keeps a window’s records to its end, and with backoff as long as later windows look back at it', () => {
    expect(windowRecordsExpireAt(plain, 5 * MINUTE)).toEqual(new Date(5 * MINUTE));
    expect(windowRecordsExpireAt(rule, 5 * MINUTE)).toEqual(new Date((5 + BACKOFF_WINDOWS) * MINUTE));
  });
});

describe('retryAfterSeconds', () => {
  it('is the whole seconds to the next window, at least one', () => {
    expect(retryAfterSeconds(MINUTE, 0)).toBe(60);
    expect(retryAfterSeconds(MINUTE, MINUTE - 1_001)).toBe(2);
    expect(retryAfterSeconds(MINUTE, MINUTE - 1)).toBe(1);
    expect(retryAfterSeconds(MINUTE, MINUTE)).toBe(1);
    expect(retryAfterSeconds(MINUTE, MINUTE + 5_000)).toBe(1);
  });
});
