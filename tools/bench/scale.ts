// `npm run bench -- scale [--scale 1] [--webhooks N] [--seconds 10] [--concurrency 8] [--url http://localhost:3000] [--fill-only]`
// against a running Keyflow whose database the benchmark also opens (same
// MONGODB_* and DATA_DIR/KEYFLOW_KEK as the running Keyflow). Measures the
// code flow (authorize → token → UserInfo), refresh rotations and
// introspection on the database as it is (empty), fills it (fill.ts: 100,000
// users, 100,000 clients, 200,000 grants with refresh families, 50,000
// webhooks with delivery histories, times --scale; resumable), measures again,
// and prints each figure beside the empty one with their ratio. Flat cost is
// the target: every ratio within 15 %.
import { parseArgs } from 'node:util';
import { parseConfig } from '../../lib/config/env.js';
import { loadKek } from '../../lib/security/kek.js';
import { ensureIndexes, openStore, type Store } from '../../lib/store/db.js';
import { percentile } from './common.js';
import { countFilled, fill, fillPlan, type FillCounts } from './fill.js';
import { benchRp, codeExchange, introspect, loopFor, postToken, signedInAgent, userinfo, type BenchRp } from './rp.js';

const TARGET = 0.15;

interface Figure {
  perSecond: number;
  p50ms: number;
  p95ms: number;
  errors: number;
}

type Figures = Record<'signIn' | 'codeFlow' | 'refresh' | 'introspection', Figure>;

const LABELS: Record<keyof Figures, string> = {
  signIn: 'sign-in + consent (setup, 2×N at once)',
  codeFlow: 'code flow (authorize, token, UserInfo)',
  refresh: 'refresh rotation',
  introspection: 'introspection (access, refresh)',
};

function figure(latencies: number[], passed: number, failed: number, elapsed: number): Figure {
  const sorted = latencies.sort((a, b) => a - b);
  return {
    perSecond: Math.round(passed / elapsed),
    p50ms: Number(percentile(sorted, 50).toFixed(1)),
    p95ms: Number(percentile(sorted, 95).toFixed(1)),
    errors: failed,
  };
}

/** The three flows, `seconds` each, `workers` concurrent RPs; fresh users signed in for each measurement. */
async function measure(store: Store, rps: { code: BenchRp; refresh: BenchRp }, seconds: number, workers: number): Promise<Figures> {
  // Signing the users in is setup, but it is timed too: it finds the user by email.
  const signInMs: number[] = [];
  const signInStarted = Date.now();
  const timedAgent = async (rp: BenchRp, prefix: string) => {
    const t0 = performance.now();
    const agent = await signedInAgent(store, rp, prefix);
    signInMs.push(performance.now() - t0);
    return agent;
  };
  const [codeAgents, refreshAgents] = await Promise.all([
    Promise.all(Array.from({ length: workers }, () => timedAgent(rps.code, 'bench-scale'))),
    Promise.all(Array.from({ length: workers }, () => timedAgent(rps.refresh, 'bench-scale-refresh'))),
  ]);
  const signInElapsed = (Date.now() - signInStarted) / 1000;

  // Code flow: the whole loop's latency (authorize, token and UserInfo).
  const loopMs: number[] = [];
  const code = await loopFor(seconds, workers, async (w) => {
    const t0 = performance.now();
    const { tokens } = await codeExchange(rps.code, codeAgents[w]!);
    await userinfo(rps.code, tokens.body.access_token!);
    loopMs.push(performance.now() - t0);
  });

  // Refresh: each worker rotates its family; a broken chain starts a new family.
  const current = await Promise.all(refreshAgents.map(async (a) => (await codeExchange(rps.refresh, a)).tokens.body.refresh_token!));
  const rotationMs: number[] = [];
  const refresh = await loopFor(seconds, workers, async (w) => {
    const t0 = performance.now();
    const r = await postToken(rps.refresh, { grant_type: 'refresh_token', refresh_token: current[w]! });
    if (!r.body.refresh_token) {
      current[w] = (await codeExchange(rps.refresh, refreshAgents[w]!)).tokens.body.refresh_token!;
      throw new Error(`refresh ${r.status}`);
    }
    rotationMs.push(performance.now() - t0);
    current[w] = r.body.refresh_token;
  });

  // Introspection: an access token and a refresh token (of a family that is not rotating) in turn.
  const held = await Promise.all(
    refreshAgents.map(async (a) => {
      const { tokens } = await codeExchange(rps.refresh, a);
      return { access: tokens.body.access_token!, refresh: tokens.body.refresh_token! };
    }),
  );
  const introspectMs: number[] = [];
  let turn = 0;
  const intro = await loopFor(seconds, workers, async (w) => {
    const asRefresh = turn++ % 2 === 1;
    const t0 = performance.now();
    await introspect(rps.refresh, asRefresh ? held[w]!.refresh : held[w]!.access, asRefresh ? 'refresh_token' : 'access_token');
    introspectMs.push(performance.now() - t0);
  });

  return {
    signIn: figure(signInMs, signInMs.length, 0, signInElapsed),
    codeFlow: figure(loopMs, code.passed, code.failed, code.elapsed),
    refresh: figure(rotationMs, refresh.passed, refresh.failed, refresh.elapsed),
    introspection: figure(introspectMs, intro.passed, intro.failed, intro.elapsed),
  };
}

const ratio = (filled: number, empty: number) => (empty > 0 ? Number((filled / empty).toFixed(2)) : NaN);

/** Within target: throughput at least 85 % of the empty database's, latencies at most 115 %. */
function ratios(empty: Figures, filled: Figures) {
  const out: Record<string, { perSecond: number; p50: number; p95: number; withinTarget: boolean }> = {};
  for (const key of Object.keys(LABELS) as (keyof Figures)[]) {
    const r = {
      perSecond: ratio(filled[key].perSecond, empty[key].perSecond),
      p50: ratio(filled[key].p50ms, empty[key].p50ms),
      p95: ratio(filled[key].p95ms, empty[key].p95ms),
    };
    out[key] = { ...r, withinTarget: r.perSecond >= 1 - TARGET && r.p50 <= 1 + TARGET && r.p95 <= 1 + TARGET };
  }
  return out;
}

/** A measurement as soon as it is taken (a fill may be stopped before the comparison). */
function printFigures(f: Figures): void {
  for (const key of Object.keys(LABELS) as (keyof Figures)[])
    process.stdout.write(`  ${LABELS[key].padEnd(40)} ${f[key].perSecond}/s  p50 ${f[key].p50ms} ms  p95 ${f[key].p95ms} ms  errors ${f[key].errors}\n`);
}

const describeCounts = (c: FillCounts) =>
  `${c.users.toLocaleString('en')} users, ${c.clients.toLocaleString('en')} clients, ${c.grants.toLocaleString('en')} grants, ${c.webhooks.toLocaleString('en')} webhooks filled`;

export async function scaleBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      scale: { type: 'string', default: '1' },
      seconds: { type: 'string', default: '10' },
      concurrency: { type: 'string', default: '8' },
      url: { type: 'string', default: 'http://localhost:3000' },
      'fill-only': { type: 'boolean', default: false },
      // Fewer webhooks than the scale says: a shorter fill.
      webhooks: { type: 'string' },
    },
  });
  const scale = Number(values.scale);
  const seconds = Number(values.seconds);
  const workers = Number(values.concurrency);
  const parsed = parseConfig(process.env);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  const store = openStore(parsed.config);
  const progress = (line: string) => process.stdout.write(`  ${line}\n`);
  try {
    await ensureIndexes(store);
    const kek = loadKek(parsed.config.kek, parsed.config.dataDir);
    const plan = { ...fillPlan(scale), ...(values.webhooks !== undefined ? { webhooks: Number(values.webhooks) } : {}) };
    if (values['fill-only']) {
      await fill(store, kek, plan, progress);
      process.stdout.write(`${describeCounts(await countFilled(store, plan))}\n`);
      return;
    }
    const base = String(values.url);
    const rps = {
      code: await benchRp(store, base, { name: 'bench scale', scopes: ['openid', 'profile', 'email'], alg: 'RS256' }),
      refresh: await benchRp(store, base, { name: 'bench scale refresh', scopes: ['openid', 'offline_access'], alg: 'RS256' }),
    };

    const before = await countFilled(store, plan);
    process.stdout.write(`empty database (${describeCounts(before)}): ${seconds} s per flow, ${workers} concurrent RPs\n`);
    if (before.users + before.clients + before.grants + before.webhooks > 0)
      process.stdout.write('  note: the database already holds filled data, so the "empty" figures are not of an empty database\n');
    const empty = await measure(store, rps, seconds, workers);
    printFigures(empty);

    process.stdout.write(
      `filling (scale ${scale}: ${plan.users.toLocaleString('en')} users, ${plan.clients.toLocaleString('en')} clients, ${plan.grants.toLocaleString('en')} grants × ${1 + plan.rotations} refresh tokens, ${plan.webhooks.toLocaleString('en')} webhooks × ${plan.deliveriesPerWebhook} deliveries)\n`,
    );
    const fillStarted = Date.now();
    await fill(store, kek, plan, progress);
    const fillSeconds = Math.round((Date.now() - fillStarted) / 1000);
    const after = await countFilled(store, plan);
    process.stdout.write(`filled in ${fillSeconds} s (${describeCounts(after)}); measuring again\n`);
    const filled = await measure(store, rps, seconds, workers);
    printFigures(filled);

    const r = ratios(empty, filled);
    const cell = (f: Figure) => `${String(f.perSecond).padStart(5)}/s  p50 ${String(f.p50ms).padStart(6)}  p95 ${String(f.p95ms).padStart(6)}  err ${f.errors}`;
    process.stdout.write(`\n${'flow'.padEnd(40)} ${'empty'.padEnd(38)} ${'filled'.padEnd(38)} ratio (/s, p50, p95)\n`);
    for (const key of Object.keys(LABELS) as (keyof Figures)[]) {
      const k = r[key]!;
      process.stdout.write(
        `${LABELS[key].padEnd(40)} ${cell(empty[key]).padEnd(38)} ${cell(filled[key]).padEnd(38)} ${k.perSecond} ${k.p50} ${k.p95}  ${k.withinTarget ? 'within 15 %' : 'MISSES 15 %'}\n`,
      );
    }
    process.stdout.write(
      JSON.stringify({ bench: 'scale', scale, plan, seconds, concurrency: workers, fillSeconds, before, after, empty, filled, ratios: r }) + '\n',
    );
  } finally {
    await store.close();
  }
}
