// `npm run bench -- refresh [--families 16] [--seconds 20] [--url http://localhost:3000]`
// against a running Keyflow: N refresh families (RS256 client), each rotating
// its refresh token in a loop through the RefreshFamily workflow's update.
// Prints rotations per second and p50/p95/p99 latency.
import { benchSetup, percentile } from './common.js';
import { benchRp, codeExchange, postToken, signedInAgent } from './rp.js';

export async function refreshBench(argv: string[]): Promise<void> {
  const { count: families, seconds, base, store } = await benchSetup(argv, 'families', { count: 16, seconds: 20 });
  try {
    const rp = await benchRp(store, base, { name: 'bench refresh', scopes: ['openid', 'offline_access'], alg: 'RS256' });
    const tokens = await Promise.all(
      Array.from({ length: families }, async () => {
        const { tokens: first } = await codeExchange(rp, await signedInAgent(store, rp, 'bench-refresh'));
        if (!first.body.refresh_token) throw new Error(`no refresh token: ${first.status}`);
        return first.body.refresh_token;
      }),
    );
    const latencies: number[] = [];
    let errors = 0;
    const end = Date.now() + seconds * 1000;
    const started = Date.now();
    await Promise.all(
      tokens.map(async (first) => {
        let current = first;
        while (Date.now() < end) {
          const t0 = performance.now();
          const r = await postToken(rp, { grant_type: 'refresh_token', refresh_token: current });
          latencies.push(performance.now() - t0);
          if (!r.body.refresh_token) {
            errors++;
            break;
          }
          current = r.body.refresh_token;
        }
      }),
    );
    const elapsed = (Date.now() - started) / 1000;
    const sorted = latencies.sort((a, b) => a - b);
    const result = {
      rotationsPerSecond: Math.round((latencies.length - errors) / elapsed),
      rotations: latencies.length - errors,
      errors,
      p50ms: Number(percentile(sorted, 50).toFixed(1)),
      p95ms: Number(percentile(sorted, 95).toFixed(1)),
      p99ms: Number(percentile(sorted, 99).toFixed(1)),
    };
    process.stdout.write(
      `refresh rotations: ${result.rotationsPerSecond}/s  p50 ${result.p50ms} ms  p95 ${result.p95ms} ms  p99 ${result.p99ms} ms  errors ${errors}  (${families} families)\n`,
    );
    process.stdout.write(JSON.stringify({ bench: 'refresh', families, seconds, ...result }) + '\n');
  } finally {
    await store.close();
  }
}
