// What the HTTP benchmarks share: their command line (a count, a duration, the
// Keyflow URL), the store they create users and clients in, and percentiles.
import { parseArgs } from 'node:util';
import { parseConfig } from '../../lib/config/env.js';
import { ensureIndexes, openStore, type Store } from '../../lib/store/db.js';

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export interface BenchSetup {
  count: number;
  seconds: number;
  base: string;
  store: Store;
}

/** Parses `--<countFlag> N --seconds S --url U` and opens the configured MongoDB. */
export async function benchSetup(argv: string[], countFlag: string, defaults: { count: number; seconds: number }): Promise<BenchSetup> {
  const { values } = parseArgs({
    args: argv,
    options: {
      [countFlag]: { type: 'string', default: String(defaults.count) },
      seconds: { type: 'string', default: String(defaults.seconds) },
      url: { type: 'string', default: 'http://localhost:3000' },
    },
  });
  const parsed = parseConfig(process.env);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  const store = openStore(parsed.config);
  await ensureIndexes(store);
  return { count: Number(values[countFlag]), seconds: Number(values.seconds), base: String(values.url), store };
}
