// Signing cost per algorithm and implementation, with concurrency, so the
// difference between on-loop (noble) and thread-pool (native, RSA) signing shows.
import os from 'node:os';
import { Keyring } from '../../lib/keys/keyring.js';
import { loadKek } from '../../lib/security/kek.js';
import { createMlDsa65, nativeMlDsaAvailable } from '../../lib/keys/mldsa.js';
import { Signer } from '../../lib/keys/signer.js';
import { parseConfig } from '../../lib/config/env.js';
import type { SigningAlg } from '../../lib/model/signing-keys.js';
import { dropDatabase, ensureIndexes, openStore } from '../../lib/store/db.js';

export async function signingBench(args: string[]): Promise<void> {
  const seconds = Number(args[0] ?? 3);
  const concurrency = Number(args[1] ?? 16);
  const parsed = parseConfig({ ...process.env, MONGODB_DATABASE: `bench_signing_${process.pid}` });
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  const store = openStore(parsed.config);
  await ensureIndexes(store);
  const kek = loadKek(Buffer.alloc(32, 5), os.tmpdir());
  const results: Record<string, number> = {};
  try {
    await new Keyring(store, kek, createMlDsa65('auto')).ensureInitialKeys();
    const cases: [string, SigningAlg, 'native' | 'noble'][] = [
      ['RS256', 'RS256', 'noble'],
      ['ML-DSA-65 noble', 'ML-DSA-65', 'noble'],
    ];
    if (nativeMlDsaAvailable()) cases.push(['ML-DSA-65 native', 'ML-DSA-65', 'native']);
    for (const [label, alg, impl] of cases) {
      const signer = new Signer(new Keyring(store, kek, createMlDsa65(impl)));
      await signer.sign({ warm: true }, { alg });
      let count = 0;
      const end = Date.now() + seconds * 1000;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (Date.now() < end) {
            await signer.sign({ sub: 'bench', iat: count, jti: String(count) }, { alg });
            count++;
          }
        }),
      );
      results[label] = Math.round(count / seconds);
      process.stdout.write(`${label.padEnd(18)} ${String(results[label]).padStart(7)} signatures/s (concurrency ${concurrency})\n`);
    }
  } finally {
    await dropDatabase(store);
    await store.close();
  }
  process.stdout.write(JSON.stringify({ bench: 'signing', seconds, concurrency, results }) + '\n');
}
