// Helpers for tests of limits: fixed windows start at multiples of their
// length, so a burst sent just before a window ends could be counted in two
// windows; the burst waits for the next window when the current one is about
// to end (a wait, never an assertion about time).
export async function awayFromWindowEdge(windowMs: number, marginMs: number): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await new Promise((r) => setTimeout(r, left + 250));
}

/** How many responses had each status. */
export function countStatuses(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
  return counts;
}
