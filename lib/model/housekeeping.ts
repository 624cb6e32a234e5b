// The housekeeping flow's input and result, shared by the workflow and the
// schedules that start it. Pure module: the workflow imports it.
import { EXPIRING_COLLECTIONS, type ExpiringCollection } from './expiring.js';

/**
 * Which collections a run purges. Every purge reads its collection whole (on
 * FerretDB v1 any filter but `_id` does too), so the large collections whose
 * owner deletes its own documents are left to a daily pass: `refresh_tokens`
 * (a family deletes the tokens it knows when it ends; the daily pass catches
 * what a crash, or a family older than its carried hashes, left). Every read
 * checks `expiresAt`, so the cadence decides only how long dead documents take
 * room.
 */
export type HousekeepingPass = 'frequent' | 'daily';

const DAILY_ONLY: readonly ExpiringCollection[] = ['refresh_tokens'];

/** The collections of a pass; without one (a schedule not yet brought in line, a manual run), all of them. */
export function collectionsOfPass(pass: HousekeepingPass | undefined): ExpiringCollection[] {
  if (pass === undefined) return [...EXPIRING_COLLECTIONS];
  return EXPIRING_COLLECTIONS.filter((c) => DAILY_ONLY.includes(c) === (pass === 'daily'));
}

export interface HousekeepingInput {
  /** Expired documents deleted between two progress reports (heartbeats). */
  batchSize: number;
  /** Upper bound of batches per collection and run; the next run continues. */
  maxBatches: number;
  /** Absent in schedules from before the daily pass: every collection. */
  pass?: HousekeepingPass;
}

/** Documents deleted per collection in one run. */
export type HousekeepingResult = Record<string, number>;

/** What the purge activity is asked for one collection. */
export interface PurgeRequest {
  collection: ExpiringCollection;
  batchSize: number;
  maxBatches: number;
}
