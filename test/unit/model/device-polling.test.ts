// Pacing of device polls (RFC 8628 §3.5): a poll sooner than the interval
// after the previous one is early, and so is one ahead of the budget (one
// interval per poll since the code was issued, early polls included), so each
// slow_down pushes the next allowed poll one interval further, as the RFC tells
// the client to wait 5 seconds longer.
import { isEarlyPoll } from '../../../lib/model/device-authorization.js';

const issued = new Date('2026-11-25T12:00:00Z');
const at = (seconds: number) => new Date(issued.getTime() + seconds * 1000);
const pacing = (polls: number, lastPollSecond: number | null) => ({
  interval: 5,
  pollsFrom: issued,
  polls,
  lastPollAt: lastPollSecond === null ? null : at(lastPollSecond),
});

it('lets the first poll through, whenever it comes', () => {
  expect(isEarlyPoll(pacing(0, null), at(0))).toBe(false);
});

it('takes a poll sooner than the interval after the previous one as early', () => {
  expect(isEarlyPoll(pacing(1, 0), at(4.9))).toBe(true);
  expect(isEarlyPoll(pacing(1, 0), at(5))).toBe(false);
});

it('grows the wait by one interval with each early poll (the budget counts it)', () => {
  // Polls at 0 (in time), 0.1 and 0.2 (slow_down twice): the next allowed poll is at 15 s.
  expect(isEarlyPoll(pacing(3, 0.2), at(10))).toBe(true);
  expect(isEarlyPoll(pacing(3, 0.2), at(15))).toBe(false);
});

it('lets a client polling at the interval it was given go on forever', () => {
  for (let n = 1; n < 50; n++) expect([n, isEarlyPoll(pacing(n, (n - 1) * 5), at(n * 5))]).toEqual([n, false]);
});

it('paces codes issued before the budget by the interval alone', () => {
  const legacy = { interval: 10, lastPollAt: at(0) };
  expect(isEarlyPoll(legacy, at(9))).toBe(true);
  expect(isEarlyPoll(legacy, at(10))).toBe(false);
});
