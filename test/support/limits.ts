// Helpers for tests of limits: fixed windows start at multiples of their
// length, so a burst sent just before a window ends could be counted in two
// windows; the burst then starts in the next window, the api's clock moved
// there (the limits are counted by the api in the test's process; never an
// assertion about time).
import { apiNow, skipTime } from './clock.js';

export async function awayFromWindowEdge(windowMs: number, marginMs: number): Promise<void> {
  const left = windowMs - (apiNow() % windowMs);
  if (left < marginMs) skipTime(left + 250);
}

/** How many responses had each status. */
export function countStatuses(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
  return counts;
}
