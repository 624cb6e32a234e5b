// `npm run bench -- code-flow [--rps 16] [--seconds 20] [--url http://localhost:3000]`
// against a running Keyflow (npm start). N virtual RPs, each with its own user
// signed in once (consent remembered), loop authorize → token → UserInfo over
// HTTP. Printed per client algorithm (ML-DSA-65, RS256): full loops per second,
// token endpoint p50/p95/p99, and the api process's peak memory (VmHWM). With
// METRICS_ADDR / WORKER_METRICS_ADDR set as for npm start, also what one loop
// costs: MongoDB commands, Temporal calls, CPU ms per process (costs.ts).
import fs from 'node:fs';
import type { IdTokenAlg } from '../../lib/model/clients.js';
import { benchSetup, percentile } from './common.js';
import { costDiff, costSnapshot, costTargetsFromEnv, formatCost, pidListeningOn } from './costs.js';
import { benchRp, codeExchange, loopFor, signedInAgent, userinfo } from './rp.js';

function peakRssMb(pid: number | null): number | null {
  if (pid === null) return null;
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null; // the process is gone
  }
}

export async function codeFlowBench(argv: string[]): Promise<void> {
  const { count: concurrency, seconds, base, store } = await benchSetup(argv, 'rps', { count: 16, seconds: 20 });
  const discovery = (await (await fetch(`${base}/.well-known/openid-configuration`)).json()) as { issuer: string };
  // Other Keyflows may run on this machine: the api is the process listening on the bench's port.
  const pid = pidListeningOn(Number(new URL(base).port || 80));
  const costTargets = costTargetsFromEnv();
  const results: Record<string, unknown> = {};

  try {
    for (const alg of ['ML-DSA-65', 'RS256'] as IdTokenAlg[]) {
      const rp = await benchRp(store, base, { name: `bench ${alg}`, scopes: ['openid', 'profile', 'email'], alg });
      // Sign in and consent once per virtual RP.
      const agents = await Promise.all(Array.from({ length: concurrency }, () => signedInAgent(store, rp, `bench-${alg.toLowerCase()}`)));

      const tokenLatencies: number[] = [];
      const costBefore = await costSnapshot(costTargets);
      const {
        passed: loops,
        failed: errors,
        elapsed,
      } = await loopFor(seconds, concurrency, async (w) => {
        const { tokenMs, tokens } = await codeExchange(rp, agents[w]!);
        tokenLatencies.push(tokenMs);
        await userinfo(rp, tokens.body.access_token!);
      });
      const costAfter = await costSnapshot(costTargets);
      // Without the api's metrics listener there is nothing to divide: the block is left out.
      const cost = costBefore.api && costAfter.api ? costDiff(costBefore, costAfter, loops) : undefined;
      const sorted = tokenLatencies.sort((a, b) => a - b);
      const r = {
        loopsPerSecond: Math.round(loops / elapsed),
        loops,
        errors,
        tokenP50ms: Number(percentile(sorted, 50).toFixed(1)),
        tokenP95ms: Number(percentile(sorted, 95).toFixed(1)),
        tokenP99ms: Number(percentile(sorted, 99).toFixed(1)),
        apiPeakRssMb: peakRssMb(pid),
        cost,
      };
      results[alg] = r;
      process.stdout.write(
        `${alg.padEnd(10)} ${String(r.loopsPerSecond).padStart(5)} loops/s  token p50 ${r.tokenP50ms} ms  p95 ${r.tokenP95ms} ms  p99 ${r.tokenP99ms} ms  errors ${errors}  api peak RSS ${r.apiPeakRssMb ?? '?'} MB\n`,
      );
      if (cost) process.stdout.write(formatCost(cost) + '\n');
    }
  } finally {
    await store.close();
  }
  process.stdout.write(JSON.stringify({ bench: 'code-flow', issuer: discovery.issuer, concurrency, seconds, results }) + '\n');
}
