// The time every expiry, lifetime and window of Keyflow reads (client lookups
// remembered, max_age, device codes, refresh families, attempt windows,
// timestamps stored with documents): the system clock, plus an
// offset that only a test can move, so that a test of an expiry skips the wait
// instead of sleeping through it. Nothing outside test/support/clock.ts calls
// advanceClock or resetClock (a lint rule says so), and no input reaches the
// offset: no variable, setting or route. The offset belongs to the process (a
// jest test file has its own), and only ever moves time forward.
let offsetMs = 0;

/** Milliseconds since the epoch, as Date.now(). */
export function currentTimeMs(): number {
  return Date.now() + offsetMs;
}

/** The current time as a Date. */
export function currentDate(): Date {
  return new Date(currentTimeMs());
}

/**
 * The system clock itself, for what must run on real time whatever a test
 * skipped: deadlines of calls to other servers (gRPC, connections), which the
 * other side counts. Durations are measured with performance.now().
 */
export function realTimeMs(): number {
  return Date.now();
}

/** Tests only (through test/support/clock.ts): moves this process's clock `ms` forward. */
export function advanceClock(ms: number): void {
  if (!(ms >= 0)) throw new RangeError(`the clock only moves forward (asked: ${ms} ms)`);
  offsetMs += ms;
}

/** Tests only (through test/support/clock.ts): back to the system clock. */
export function resetClock(): void {
  offsetMs = 0;
}
