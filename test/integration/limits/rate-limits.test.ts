// The attempt limiter every limit relies on, against the real FerretDB:
// parallel attempts never exceed the window's capacity (a `$inc` counter did:
// 40 of 40 under a limit of 10), released slots come back, backoff halves the
// next window's capacity, and two databases in one process do not share counts.
import { type Store } from '../../../lib/store/db.js';
import { hasReached, takeAttempt, takeAttempts } from '../../../lib/store/rate-limits.js';
import type { LimitRule } from '../../../lib/model/rate-limits.js';
import { openTestStore, testDatabase } from '../../support/database.js';

let store: Store;
let other: Store;
beforeAll(() => {
  store = openTestStore(testDatabase('limits_a'));
  other = openTestStore(testDatabase('limits_b'));
});
afterAll(async () => {
  await store.close();
  await other.close();
});

const key = (name: string) => `${name}:${Date.now()}:${Math.random()}`;
/** A fixed window far from any boundary, so a test's attempts all fall in it. */
const HOUR = 3_600_000;
const at = (window: number) => window * HOUR + HOUR / 2;

describe('takeAttempt', () => {
  it('admits exactly the capacity among 50 parallel attempts, and refuses with Retry-After', async () => {
    const k = key('parallel');
    const rule: LimitRule = { max: 10, windowMs: HOUR };
    const results = await Promise.all(Array.from({ length: 50 }, () => takeAttempt(store, k, rule, at(1000))));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
    const refused = results.find((r) => !r.allowed);
    expect(refused).toEqual({ allowed: false, retryAfter: 1800 });
  });

  it('gives a released slot back', async () => {
    const k = key('release');
    const rule: LimitRule = { max: 3, windowMs: HOUR };
    const taken = await Promise.all([1, 2, 3].map(() => takeAttempt(store, k, rule, at(1000))));
    expect((await takeAttempt(store, k, rule, at(1000))).allowed).toBe(false);
    const first = taken[0]!;
    if (first.allowed) await first.attempt.release();
    expect((await takeAttempt(store, k, rule, at(1000))).allowed).toBe(true);
    expect((await takeAttempt(store, k, rule, at(1000))).allowed).toBe(false);
  });

  it('never refuses while fewer than the capacity are held: parallel bursts whose attempts are all given back', async () => {
    const k = key('bursts');
    const rule: LimitRule = { max: 30, windowMs: HOUR, backoff: true };
    for (let burst = 0; burst < 6; burst++) {
      const results = await Promise.all(Array.from({ length: 16 }, () => takeAttempt(store, k, rule, at(6000))));
      expect([burst, results.filter((r) => r.allowed).length]).toEqual([burst, 16]);
      await Promise.all(results.map((r) => (r.allowed ? r.attempt.release() : Promise.resolve())));
    }
    // The window never ran out, so the next one has its full capacity (no backoff).
    const next = await Promise.all(Array.from({ length: 40 }, () => takeAttempt(store, k, rule, at(6001))));
    expect(next.filter((r) => r.allowed)).toHaveLength(30);
  });

  it('starts every window afresh without backoff', async () => {
    const k = key('windows');
    const rule: LimitRule = { max: 4, windowMs: HOUR };
    for (let i = 0; i < 6; i++) await takeAttempt(store, k, rule, at(2000));
    const next = await Promise.all(Array.from({ length: 6 }, () => takeAttempt(store, k, rule, at(2001))));
    expect(next.filter((r) => r.allowed)).toHaveLength(4);
  });

  it('halves the capacity after each window that ran out, down to 1, also when the attacker stops exactly at the limit', async () => {
    const k = key('backoff');
    const rule: LimitRule = { max: 8, windowMs: HOUR, backoff: true };
    const allowedIn = async (window: number, tries: number) =>
      (await Promise.all(Array.from({ length: tries }, () => takeAttempt(store, k, rule, at(window))))).filter((r) => r.allowed).length;
    expect(await allowedIn(3000, 8)).toBe(8); // exactly the limit, no refusal
    expect(await allowedIn(3001, 20)).toBe(4);
    expect(await allowedIn(3002, 20)).toBe(2);
    expect(await allowedIn(3003, 20)).toBe(1);
    expect(await allowedIn(3004, 20)).toBe(1);
    // A quiet window (nothing taken) ends the backoff once it is the only one looked at.
    expect(await allowedIn(3010, 20)).toBe(8);
  });

  it('counts each database on its own, even in one process', async () => {
    const k = key('databases');
    const rule: LimitRule = { max: 5, windowMs: HOUR };
    expect((await Promise.all(Array.from({ length: 5 }, () => takeAttempt(store, k, rule, at(4000))))).every((r) => r.allowed)).toBe(true);
    const inOther = await Promise.all(Array.from({ length: 7 }, () => takeAttempt(other, k, rule, at(4000))));
    expect(inOther.filter((r) => r.allowed)).toHaveLength(5);
  });

  it('stores no key in clear', async () => {
    const k = `email:someone-${Date.now()}@example.com`;
    await takeAttempt(store, k, { max: 2, windowMs: HOUR });
    const ids = (await store.db.collection('rate_limits').find({}).toArray()).map((d) => String(d._id));
    expect(ids.some((id) => id.includes('example.com') || id.includes('someone'))).toBe(false);
  });
});

describe('takeAttempts and hasReached', () => {
  it('takes under every rule or none: a refusal by one gives the others their slots back', async () => {
    const account = key('account');
    const address = key('address');
    const small: LimitRule = { max: 2, windowMs: HOUR };
    const large: LimitRule = { max: 10, windowMs: HOUR };
    for (let i = 0; i < 2; i++)
      expect(
        (
          await takeAttempts(store, [
            [address, small],
            [account, large],
          ])
        ).allowed,
      ).toBe(true);
    // The address is out: the account's slot taken first is given back.
    for (let i = 0; i < 5; i++)
      expect(
        (
          await takeAttempts(store, [
            [account, large],
            [address, small],
          ])
        ).allowed,
      ).toBe(false);
    const rest = await Promise.all(Array.from({ length: 10 }, () => takeAttempt(store, account, large)));
    expect(rest.filter((r) => r.allowed)).toHaveLength(8);
  });

  it('tells whether n attempts were taken in the window', async () => {
    const k = key('reached');
    const rule: LimitRule = { max: 10, windowMs: HOUR };
    expect(await hasReached(store, k, rule, 3, at(5000))).toBe(false);
    for (let i = 0; i < 3; i++) await takeAttempt(store, k, rule, at(5000));
    expect(await hasReached(store, k, rule, 3, at(5000))).toBe(true);
    expect(await hasReached(store, k, rule, 4, at(5000))).toBe(false);
    expect(await hasReached(store, k, rule, 3, at(5001))).toBe(false);
  });
});
