// The housekeeping flow's input and result, shared by the workflow and the
// schedule that starts it. Pure module: the workflow imports it.

export interface HousekeepingInput {
  batchSize: number;
  /** Upper bound of batches per collection and run; the next run continues. */
  maxBatches: number;
}

/** Documents deleted per collection in one run. */
export type HousekeepingResult = Record<string, number>;
