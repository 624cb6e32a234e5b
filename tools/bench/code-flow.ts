// `npm run bench -- code-flow [--rps 16] [--seconds 20] [--url http://localhost:3000]`
// against a running Keyflow (npm start). N virtual RPs, each with its own user
// signed in once (consent remembered), loop authorize → token → UserInfo over
// HTTP. Printed per client algorithm (ML-DSA-65, RS256): full loops per second,
// token endpoint p50/p95/p99, and the api process's peak memory (VmHWM). With
// METRICS_ADDR / WORKER_METRICS_ADDR set as for npm start, also what one loop
// costs: MongoDB commands, Temporal calls, CPU ms per process (costs.ts).
import fs from 'node:fs';
import type { IdTokenAlg } from '../../lib/domain/clients.js';
import { s256Challenge } from '../../lib/domain/pkce.js';
import { newSecret } from '../../lib/security/secrets.js';
import { createClient } from '../../lib/store/clients.js';
import { benchSetup, percentile } from './common.js';
import { KeyflowAgent } from './keyflow-agent.js';
import { costDiff, costSnapshot, costTargetsFromEnv, formatCost, pidListeningOn } from './costs.js';

const REDIRECT = 'https://bench-rp.example/cb';

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
      const { client, clientSecret } = await createClient(store, {
        name: `bench ${alg}`,
        redirectUris: [{ type: 'equals', value: REDIRECT }],
        allowedScopes: ['openid', 'profile', 'email'],
        idTokenSignedResponseAlg: alg,
      });
      const basic = `Basic ${Buffer.from(`${client._id}:${clientSecret}`).toString('base64')}`;
      const authorizeUrl = (challenge: string) =>
        `${base}/api/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: client._id, redirect_uri: REDIRECT, scope: 'openid profile email', state: 's', code_challenge: challenge, code_challenge_method: 'S256' })}`;

      // Sign in and consent once per virtual RP.
      const agents = await Promise.all(
        Array.from({ length: concurrency }, async (_, i) => {
          const agent = await KeyflowAgent.create(store, base, `bench-${alg.toLowerCase()}-${i}`);
          const redirect = await agent.authorizeFirst(authorizeUrl(s256Challenge(newSecret())));
          if (!redirect.searchParams.get('code')) throw new Error('warm-up sign-in failed');
          return agent;
        }),
      );

      const tokenLatencies: number[] = [];
      let loops = 0;
      let errors = 0;
      const costBefore = await costSnapshot(costTargets);
      const end = Date.now() + seconds * 1000;
      const started = Date.now();
      await Promise.all(
        agents.map(async (agent) => {
          while (Date.now() < end) {
            try {
              const verifier = newSecret();
              const auth = await agent.request(authorizeUrl(s256Challenge(verifier)));
              const code = new URL(auth.headers.get('location')!).searchParams.get('code');
              if (!code) throw new Error(`no code (status ${auth.status})`);
              const t0 = performance.now();
              const tokenRes = await fetch(`${base}/api/oauth/token`, {
                method: 'POST',
                headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
                body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }),
              });
              const tokens = (await tokenRes.json()) as { access_token?: string };
              tokenLatencies.push(performance.now() - t0);
              if (!tokens.access_token) throw new Error(`token ${tokenRes.status}`);
              const info = await fetch(`${base}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
              await info.arrayBuffer();
              if (info.status !== 200) throw new Error(`userinfo ${info.status}`);
              loops++;
            } catch {
              errors++;
            }
          }
        }),
      );
      const elapsed = (Date.now() - started) / 1000;
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
