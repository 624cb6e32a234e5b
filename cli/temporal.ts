// The CLI's connection to Temporal, for commands that cannot finish without it.
// Temporal's SDK is loaded here, on the first connection, not when the CLI starts.
import type { Config } from '../lib/config/env.js';
import type { connectTemporalClient } from '../lib/temporal/connection.js';

/** A Temporal client for one command (closed by the caller), or an error saying what to check. */
export async function connectTemporal(cfg: Config): ReturnType<typeof connectTemporalClient> {
  const { connectTemporalClient } = await import('../lib/temporal/connection.js');
  try {
    return await connectTemporalClient(cfg, 5_000);
  } catch (err) {
    throw new Error(`cannot reach Temporal at ${cfg.temporal.address}; is Keyflow running (npm start), or TEMPORAL_ADDRESS set?`, { cause: err });
  }
}

/** Refresh families Temporal could not be told about: the command did its work, but says so (exit 1). */
export function reportUnreachedFamilies(familiesUnreached: number): void {
  if (familiesUnreached > 0)
    throw new Error(`${familiesUnreached} refresh families could not be ended (Temporal did not answer); their refresh tokens are refused all the same`);
}
