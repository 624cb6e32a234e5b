// The one rule for "a dependency is unavailable or too slow": MongoDB
// unreachable, stalled past its bound or shutting down; Temporal unreachable,
// overloaded, or past a call's deadline (an update no worker answered). The
// api answers such an error with 503 and Retry-After, never a 500; any other
// error is a fault.
import { isStoreUnavailable } from '../store/db.js';
import { isTemporalUnavailable } from '../temporal/connection.js';

/** When to try again after a 503 (a dependency down, the api or worker still starting), in seconds. */
export const RETRY_AFTER_SECONDS = 5;

/** Causes followed at most (an error wrapping an error wrapping …). */
const MAX_CAUSES = 5;

export function isDependencyUnavailable(err: unknown): boolean {
  return unavailableDependency(err) !== null;
}

/** Which dependency an error says is unavailable or too slow (its causes followed), or null when it says neither. */
export function unavailableDependency(err: unknown): 'mongodb' | 'temporal' | null {
  let current = err;
  for (let depth = 0; depth <= MAX_CAUSES && current !== undefined && current !== null; depth++) {
    if (isStoreUnavailable(current)) return 'mongodb';
    if (isTemporalUnavailable(current)) return 'temporal';
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}
