// `npm run bench -- compare [--rps 16] [--seconds 10] [--url http://localhost:3000]`:
// Keyflow (running, npm start) beside node-oidc-provider, in one run on the
// same machine, driven by the same client code (scenarios.ts). Per scenario,
// in this order: Keyflow, the peer with its in-memory adapter, the peer on
// the same FerretDB Keyflow uses (database oidc_peer_bench). The peers are
// child processes on 127.0.0.1:3720 (memory) and :3721 (store), killed when
// the benchmark ends, fails or is interrupted; their database is dropped.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { passwordHashParams, setPasswordHashCost } from '../../lib/security/password.js';
import { createRequire } from 'node:module';
import { parseConfig } from '../../lib/config/env.js';
import { inboxIsEmpty } from '../../lib/store/audit-records.js';
import type { Store } from '../../lib/store/db.js';
import { benchSetup } from './common.js';
import { costDiff, costSnapshot, costTargetsFromEnv, formatCost, type CostPerLoop, type CostTargets } from './costs.js';
import { dropPeerDatabase } from './peer/mongo-adapter.js';
import { killPeers } from './peer/process.js';
import { peerTarget, type PeerTarget } from './peer/target.js';
import { SCENARIOS, type Scenario, type ScenarioResult } from './scenarios.js';
import { keyflowTarget, type BenchTarget } from './targets.js';

const PEER_MEMORY_PORT = 3720;
const PEER_STORE_PORT = 3721;
const PEER_DATABASE = 'oidc_peer_bench';
const PEER_NOTES = [
  "peer ID tokens are RS256 only (oidc-provider has no ML-DSA-65): the ML-DSA-65 row compares with the peer's RS256 run",
  'peer access tokens are its default opaque tokens (Keyflow issues signed JWT access tokens)',
  'peer sign-in and consent are a test handler (x-bench-account header); consent remembered via loadExistingGrant',
];

type Row = { scenario: string; op: string; keyflow: Measured; peerMemory: ScenarioResult | null; peerStore: ScenarioResult | null; peerNote?: string };

function peerVersion(): string {
  const main = createRequire(import.meta.url).resolve('oidc-provider');
  return (JSON.parse(readFileSync(new URL('../package.json', `file://${main}`), 'utf8')) as { version: string }).version;
}

type Measured = ScenarioResult & { cost?: CostPerLoop };

/** How long a run waits for Keyflow's audit sealer to seal what the run recorded. */
const SEALING_WAIT_MS = 30_000;

/**
 * Waits until the audit inbox is empty: the sealing of a run's records is
 * part of its cost (counted in its CPU column, not in its ops/s), and is not
 * left to slow the runs after it.
 */
async function sealed(store: Store): Promise<void> {
  const until = performance.now() + SEALING_WAIT_MS;
  while (!(await inboxIsEmpty(store)) && performance.now() < until) await new Promise((r) => setTimeout(r, 200));
}

/** One scenario on one target; for Keyflow (`store` given) also what an operation cost (when its /metrics answer: METRICS_ADDR). */
async function runOn(
  target: BenchTarget,
  scenario: Scenario,
  rps: number,
  seconds: number,
  costTargets: CostTargets | null,
  store?: Store,
): Promise<Measured | null> {
  const client = await target.client(scenario.name.replace(/\W+/g, '-'), scenario.idTokenAlg);
  if (!client) return null;
  const before = costTargets ? await costSnapshot(costTargets) : null;
  const result: Measured = await scenario.run(target, client, rps, seconds);
  if (store) await sealed(store);
  const after = costTargets ? await costSnapshot(costTargets) : null;
  if (before?.api && after?.api) result.cost = costDiff(before, after, result.ops);
  const errors = result.errors ? `  ERRORS ${result.errors} (first: ${result.firstError})` : '';
  process.stderr.write(
    `  ${target.label.padEnd(10)} ${scenario.name.padEnd(20)} ${String(result.opsPerSecond).padStart(6)} ops/s  p99 ${result.p99ms} ms${errors}\n`,
  );
  if (result.cost) process.stderr.write(formatCost(result.cost).replace('cost per loop', 'cost per operation') + '\n');
  return result;
}

/** Keyflow's CPU per operation across its processes (null parts: not measured). */
const hundredths = (n: number) => Math.round(n * 100) / 100;
const cpuOf = (c: CostPerLoop) => hundredths((c.cpuMs.api ?? 0) + (c.cpuMs.worker ?? 0) + (c.cpuMs.temporal ?? 0) + (c.cpuMs.ferretdb ?? 0));

const ratio = (a: ScenarioResult, b: ScenarioResult | null) => (b && b.opsPerSecond ? Number((a.opsPerSecond / b.opsPerSecond).toFixed(2)) : null);
const cell = (v: number | string | null | undefined, suffix = '') => (v === null || v === undefined ? 'n/a' : `${v}${suffix}`);

function table(rows: Row[]): string {
  const head = [
    'scenario',
    'Keyflow ops/s',
    'peer mem ops/s',
    'peer store ops/s',
    'ratio vs mem',
    'ratio vs store',
    'Keyflow p99',
    'peer mem p99',
    'peer store p99',
    'errors K/m/s',
    'Keyflow mongo/op',
    'Keyflow temporal/op',
    'Keyflow cpu ms/op (api+worker+temporal+db)',
  ];
  const lines = rows.map((r) => [
    r.scenario + (r.peerNote ? ' *' : ''),
    cell(r.keyflow.opsPerSecond),
    cell(r.peerMemory?.opsPerSecond),
    cell(r.peerStore?.opsPerSecond),
    cell(ratio(r.keyflow, r.peerMemory), '×'),
    cell(ratio(r.keyflow, r.peerStore), '×'),
    cell(r.keyflow.p99ms, ' ms'),
    cell(r.peerMemory?.p99ms, ' ms'),
    cell(r.peerStore?.p99ms, ' ms'),
    [r.keyflow.errors, r.peerMemory?.errors ?? '-', r.peerStore?.errors ?? '-'].join('/'),
    cell(r.keyflow.cost ? hundredths((r.keyflow.cost.mongodb.api?.total ?? 0) + (r.keyflow.cost.mongodb.worker?.total ?? 0)) : null),
    cell(r.keyflow.cost ? hundredths((r.keyflow.cost.temporal.api?.total ?? 0) + (r.keyflow.cost.temporal.worker?.total ?? 0)) : null),
    cell(r.keyflow.cost ? cpuOf(r.keyflow.cost) : null),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cols: string[]) => cols.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ');
  return [fmt(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...lines.map(fmt)].join('\n');
}

/** When and on what this run measured: the date (UTC) and the commit checked out (with `+` if the tree had changes). */
function runStamp(): string {
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  let commit = 'unknown commit';
  try {
    commit = git('rev-parse', '--short', 'HEAD') + (git('status', '--porcelain', '--untracked-files=no') ? '+' : '');
  } catch {
    // not a git checkout
  }
  return `run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, commit ${commit}, ${CORES} cores`;
}

/** Cores of this machine: sign-ins per core, for sizing beside Keycloak's published figure. */
const CORES = availableParallelism();

/** The password sign-in row read for sizing: hash parameters, sign-ins per second and per core, beside Keycloak's published figure. */
function passwordSizing(r: Measured): string {
  const perCore = Math.round((r.opsPerSecond / CORES) * 10) / 10;
  const cpu = r.cost ? `, ${cpuOf(r.cost)} ms of CPU each across Keyflow's processes` : '';
  return `password sign-in: ${passwordHashParams()}; ${r.opsPerSecond} sign-ins/s on ${CORES} cores = ${perCore} per core${cpu} (Keycloak publishes about 15 per vCPU with Argon2)`;
}

export async function compareBench(argv: string[]): Promise<void> {
  const { count: rps, seconds, base, store } = await benchSetup(argv, 'rps', { count: 16, seconds: 10 });
  const parsed = parseConfig(process.env);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  // The bench's users are hashed as the api under test hashes (the same environment).
  setPasswordHashCost(parsed.config.passwordHashCost);
  const mongo = { uri: parsed.config.mongo.uri, database: PEER_DATABASE };
  const peers: PeerTarget[] = [];
  let cleaned: Promise<void> | null = null;
  const cleanup = () =>
    (cleaned ??= (async () => {
      await Promise.allSettled(peers.map((p) => p.stop()));
      await dropPeerDatabase(mongo.uri, mongo.database).catch((e: unknown) => console.error('could not drop the peer database:', e));
      await store.close();
    })());
  // Whatever ends this process, no peer outlives it.
  process.on('exit', killPeers);
  const interrupted = (signal: NodeJS.Signals) => {
    console.error(`compare: ${signal}, stopping the peers`);
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted);

  try {
    const keyflow = await keyflowTarget(base, store);
    // Keyflow's own counters (METRICS_ADDR, WORKER_METRICS_ADDR), when it was started with them.
    const costTargets = costTargetsFromEnv();
    await dropPeerDatabase(mongo.uri, mongo.database);
    const names = SCENARIOS.map((s) => s.name.replace(/\W+/g, '-'));
    const peerMemory = await peerTarget('peer mem', PEER_MEMORY_PORT, names, null);
    peers.push(peerMemory);
    const peerStore = await peerTarget('peer store', PEER_STORE_PORT, names, mongo);
    peers.push(peerStore);
    process.stderr.write(`compare: ${rps} virtual RPs, ${seconds} s per scenario and target; Keyflow ${base}, peer oidc-provider ${peerVersion()}\n`);

    const rows: Row[] = [];
    for (const scenario of SCENARIOS) {
      const row: Row = {
        scenario: scenario.name,
        op: scenario.op,
        keyflow: (await runOn(keyflow, scenario, rps, seconds, costTargets, store))!,
        peerMemory: scenario.keyflowOnly ? null : await runOn(peerMemory, scenario, rps, seconds, null),
        peerStore: scenario.keyflowOnly ? null : await runOn(peerStore, scenario, rps, seconds, null),
      };
      if (scenario.keyflowOnly) row.peerNote = 'Keyflow only';
      else if (!row.peerMemory) {
        // The peer cannot sign with this algorithm: compare with its RS256 code flow.
        const rs256 = rows.find((r) => r.scenario === 'code-flow RS256');
        Object.assign(row, { peerMemory: rs256?.peerMemory ?? null, peerStore: rs256?.peerStore ?? null, peerNote: 'peer figures: its RS256 code flow' });
      }
      rows.push(row);
    }

    const out = process.stdout;
    out.write(`\n${runStamp()}\n\n${table(rows)}\n`);
    out.write(`\nops: ${rows.map((r) => `${r.scenario} = ${r.op}`).join('; ')}\n`);
    out.write(`ratio = Keyflow ops/s ÷ peer ops/s; p99 of one op; ${rps} virtual RPs (devices), ${seconds} s each, one machine\n`);
    for (const note of PEER_NOTES) out.write(`* ${note}\n`);
    const signIn = rows.find((r) => r.scenario === 'password sign-in');
    if (signIn) out.write(`${passwordSizing(signIn.keyflow)}\n`);
    out.write(
      JSON.stringify({
        bench: 'compare',
        rps,
        seconds,
        keyflow: { url: base },
        peer: {
          package: 'oidc-provider',
          version: peerVersion(),
          stores: { memory: 'default in-memory adapter', store: `FerretDB database ${PEER_DATABASE}` },
          notes: PEER_NOTES,
        },
        results: Object.fromEntries(
          rows.map((r) => [
            r.scenario,
            {
              op: r.op,
              keyflow: r.keyflow,
              peerMemory: r.peerMemory,
              peerStore: r.peerStore,
              ratioVsMemory: ratio(r.keyflow, r.peerMemory),
              ratioVsStore: ratio(r.keyflow, r.peerStore),
              ...(r.peerNote ? { peerNote: r.peerNote } : {}),
            },
          ]),
        ),
      }) + '\n',
    );
  } finally {
    await cleanup();
  }
}
