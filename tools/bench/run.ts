// `npm run bench -- <name> [options]`: Keyflow's benchmarks. Each prints its
// figures as text and a JSON line, and stops by itself (bounded in time).
import { auditBench } from './audit.js';
import { codeFlowBench } from './code-flow.js';
import { compareBench } from './compare.js';
import { deviceBench } from './device.js';
import { profileBench } from './profile.js';
import { refreshBench } from './refresh.js';
import { scaleBench } from './scale.js';
import { signingBench } from './signing.js';
import { webhooksBench } from './webhooks.js';

const benches: Record<string, { describe: string; run: (args: string[]) => Promise<void> }> = {
  audit: {
    describe:
      "the audit trail at volume on a FerretDB of its own: fill (--records, default 1,000,000), a user's last 100 and a time-range page (p95), verification rate",
    run: auditBench,
  },
  'code-flow': { describe: 'authorize → token → UserInfo loops/s and token latency at N concurrent RPs (needs npm start)', run: codeFlowBench },
  compare: {
    describe: 'Keyflow beside node-oidc-provider (in memory and on FerretDB): code flow, refresh, introspection, device polls; ratios (needs npm start)',
    run: compareBench,
  },
  device: { describe: 'device-code polls/s and latency at N pending devices (needs npm start)', run: deviceBench },
  profile: { describe: 'a .cpuprofile (node --cpu-prof) summarised: top functions by self time, self time by package', run: profileBench },
  refresh: { describe: 'refresh token rotations/s and latency at N concurrent families (needs npm start)', run: refreshBench },
  scale: {
    describe:
      'code flow, refresh and introspection on an empty database, then filled (100k users and clients, 200k grants, 50k webhooks; --scale), with ratios (needs npm start)',
    run: scaleBench,
  },
  signing: { describe: 'JWT signatures per second: ML-DSA-65 native and noble, RS256 (in-process)', run: signingBench },
  webhooks: {
    describe: 'profile-update latency with/without 10 webhooks, deliveries/s, lost deliveries (needs OUTBOUND_ALLOWLIST=webhooks=127.0.0.1:* npm start)',
    run: webhooksBench,
  },
};

const [name, ...args] = process.argv.slice(2);
const bench = name ? benches[name] : undefined;
if (!bench) {
  process.stderr.write(
    `usage: npm run bench -- <name>\n\n${Object.entries(benches)
      .map(([n, b]) => `  ${n.padEnd(12)} ${b.describe}`)
      .join('\n')}\n`,
  );
  process.exit(2);
}
await bench.run(args);
