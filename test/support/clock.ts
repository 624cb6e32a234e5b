// Skipping time in a test instead of sleeping through it: the api runs in the
// test's process, and its expiry checks read lib/runtime/clock.ts, which this
// moves forward. Importing this module puts the clock back after each test of
// the importing file, so a skip never leaks into the next test. Only what the
// api and its in-process worker check moves: a Temporal timer runs on the
// Temporal server's clock, and a process the test spawned keeps its own.
import { advanceClock, currentTimeMs, resetClock } from '../../lib/runtime/clock.js';

afterEach(() => {
  resetClock();
});

/** Moves the api's clock `ms` forward, as if that much time had passed. */
export function skipTime(ms: number): void {
  advanceClock(ms);
}

/** The api's current time, skips included (ms since the epoch). */
export const apiNow = currentTimeMs;

/**
 * For a burst against a fixed-window limit (lib/model/rate-limits.ts): when
 * less than `marginMs` of the current `windowMs` window is left, moves the
 * api's clock to the start of the next one, so the burst is counted in one
 * window (on a loaded machine a burst may take seconds, and one that straddles
 * a boundary is counted half in each window).
 */
export function inOneWindow(windowMs: number, marginMs = 30_000): void {
  const left = windowMs - (currentTimeMs() % windowMs);
  if (left < marginMs) advanceClock(left + 1);
}
