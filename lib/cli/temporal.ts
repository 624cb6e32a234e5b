// The CLI's connection to Temporal, for commands that cannot finish without it.
import type { Config } from '../config/env.js';
import { connectTemporalClient } from '../temporal/connection.js';

/** A Temporal client for one command (closed by the caller), or an error saying what to check. */
export async function connectTemporal(cfg: Config): ReturnType<typeof connectTemporalClient> {
  try {
    return await connectTemporalClient(cfg, 5_000);
  } catch (err) {
    throw new Error(`cannot reach Temporal at ${cfg.temporal.address}; is Keyflow running (npm start), or TEMPORAL_ADDRESS set?`, { cause: err });
  }
}
