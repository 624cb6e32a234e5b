// `npm run bench -- webhooks [--events 1000] [--webhooks 10] [--concurrency 8]
//   [--max-seconds 900] [--url http://localhost:3000]` against a running Keyflow
// started with OUTBOUND_ALLOWLIST=webhooks=127.0.0.1:* (deliveries go to a receiver in this
// process on 127.0.0.1; without the allow-list Keyflow refuses them as an
// internal address, and the benchmark says so before it starts).
//
// Two users with a personal access token (profile:write) each: one with N
// webhooks subscribed to `profile.updated`, one without any. The originating
// request is PATCH /api/oauth/me/profile (a new name each time: one
// `profile.updated` event per request).
//   1. baseline: E profile updates of the user without webhooks;
//   2. E updates of the user with N webhooks (E × N deliveries), interleaved
//      with E more of the user without (the same request at the same load);
//   3. waits until every delivery reached the receiver (progress every 5 s).
// Prints the request latency p50/p95/p99 of each and the added p99 (over the
// baseline, and over the user without webhooks at the same load);
// deliveries per second from the first event of phase 2 to the last delivery
// received; lost deliveries: expected (E × N) minus the distinct delivery ids
// the receiver got with a valid HMAC signature; and what Temporal says about
// the WebhookDelivery workflows (completed, success/failure state). The
// history in MongoDB keeps only the newest 50 records per webhook, so it is
// shown but not counted.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { parseConfig } from '../../lib/config/env.js';
import { loadKek } from '../../lib/security/kek.js';
import { ensureIndexes, openStore } from '../../lib/store/db.js';
import { createPersonalAccessToken } from '../../lib/store/personal-access-tokens.js';
import { createUser } from '../../lib/store/users.js';
import { recentDeliveries } from '../../lib/store/webhook-history.js';
import { createWebhook, deleteWebhook } from '../../lib/store/webhooks.js';
import type { WebhookDoc } from '../../lib/model/webhooks.js';
import { countFlows } from '../../lib/flows/flow-list.js';
import { connectTemporalClient } from '../../lib/temporal/connection.js';
import { percentile } from './common.js';

const PASSWORD = 'benchmark password 1';
const PROGRESS_MS = 5_000;

interface Receiver {
  url: string;
  secrets: Map<string, string>;
  /** Distinct delivery ids with a valid signature. */
  verified: Set<string>;
  badSignatures: number;
  duplicates: number;
  /** performance.now() of the latest verified delivery. */
  lastAt: number;
  close(): Promise<void>;
}

/** The receiver a user would write: HMAC-SHA256 of the raw body, compared in constant time, 204. */
async function startReceiver(): Promise<Receiver> {
  const r: Receiver = { url: '', secrets: new Map(), verified: new Set(), badSignatures: 0, duplicates: 0, lastAt: 0, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const secret = r.secrets.get(new URL(req.url ?? '/', 'http://x').pathname) ?? '';
      const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(Buffer.concat(chunks)).digest('hex')}`);
      const given = Buffer.from(String(req.headers['x-keyflow-signature'] ?? ''));
      const id = String(req.headers['x-keyflow-delivery'] ?? '');
      if (secret && given.length === expected.length && timingSafeEqual(given, expected)) {
        if (r.verified.has(id)) r.duplicates++;
        r.verified.add(id);
        r.lastAt = performance.now();
      } else r.badSignatures++;
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  r.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return r;
}

const fmt = (ms: number) => Number(ms.toFixed(1));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A condition the benchmark needs and did not find: one line on stderr, exit code 1, no stack. */
class Precondition extends Error {}

export async function webhooksBench(argv: string[]): Promise<void> {
  try {
    await run(argv);
  } catch (err) {
    if (!(err instanceof Precondition)) throw err;
    process.stderr.write(`bench webhooks: ${err.message}\n`);
    process.exitCode = 1;
  }
}

async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      events: { type: 'string', default: '1000' },
      webhooks: { type: 'string', default: '10' },
      concurrency: { type: 'string', default: '8' },
      'max-seconds': { type: 'string', default: '900' },
      url: { type: 'string', default: 'http://localhost:3000' },
    },
  });
  const events = Number(values.events);
  const hooks = Number(values.webhooks);
  const concurrency = Number(values.concurrency);
  const maxSeconds = Number(values['max-seconds']);
  const base = String(values.url);
  for (const [name, v] of Object.entries({ events, webhooks: hooks, concurrency, 'max-seconds': maxSeconds })) {
    if (!Number.isInteger(v) || v < 1) throw new Precondition(`--${name} must be a positive integer`);
  }
  const parsed = parseConfig(process.env);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  const cfg = parsed.config;
  try {
    await fetch(`${base}/readyz`);
  } catch {
    throw new Precondition(`Keyflow does not answer at ${base}: start it first (OUTBOUND_ALLOWLIST='webhooks=127.0.0.1:*' npm start), or pass --url`);
  }
  const store = openStore(cfg);
  const receiver = await startReceiver();
  const temporal = await connectTemporalClient(cfg, 10_000);
  const created: WebhookDoc[] = [];
  try {
    await ensureIndexes(store);
    const kek = loadKek(cfg.kek, cfg.dataDir);
    const stamp = Date.now();
    const user = async (label: string) => {
      const u = await createUser(store, { email: `bench-webhooks-${label}-${stamp}@example.com`, password: PASSWORD });
      const { token } = await createPersonalAccessToken(store, u._id, { name: 'bench webhooks', scope: ['profile:write'], expiresInDays: 1 });
      return { id: u._id, token };
    };
    const withHooks = await user('with');
    const without = await user('without');
    let n = 0;
    const updateProfile = async (u: { token: string }) => {
      const t0 = performance.now();
      const res = await fetch(`${base}/api/oauth/me/profile`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${u.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Bench ${++n}` }),
      });
      await res.arrayBuffer();
      return { ms: performance.now() - t0, ok: res.status === 200, status: res.status };
    };
    const addHook = async (path: string) => {
      const { webhook, secret } = await createWebhook(store, kek, {
        scope: 'user',
        ownerUserId: withHooks.id,
        name: `bench ${path}`,
        url: `${receiver.url}${path}`,
        events: ['profile.updated'],
      });
      receiver.secrets.set(path, secret);
      created.push(webhook);
      return webhook;
    };

    // Up front: one delivery must arrive, or the benchmark says why not.
    const probe = await addHook('/probe');
    const first = await updateProfile(withHooks);
    if (!first.ok) throw new Precondition(`PATCH /api/oauth/me/profile answered ${first.status}`);
    const probeDeadline = Date.now() + 30_000;
    let probeRecord;
    while (Date.now() < probeDeadline && !(probeRecord = (await recentDeliveries(store, probe._id, 1))[0])) await sleep(250);
    if (!probeRecord) throw new Precondition('no webhook delivery within 30 s: is the worker running (npm start), and does this Keyflow emit profile.updated?');
    if (probeRecord.error === 'refused')
      throw new Precondition(
        `Keyflow refuses deliveries to 127.0.0.1 (an internal address): restart it with OUTBOUND_ALLOWLIST='webhooks=127.0.0.1:*' npm start`,
      );
    if (!probeRecord.success) throw new Precondition(`the probe delivery failed: ${probeRecord.statusCode ?? probeRecord.error}`);
    await deleteWebhook(store, probe._id);
    created.splice(created.indexOf(probe), 1);
    receiver.verified.clear();

    const stats = (latencies: number[], errors: number) => {
      const sorted = [...latencies].sort((a, b) => a - b);
      return { requests: latencies.length, errors, p50ms: fmt(percentile(sorted, 50)), p95ms: fmt(percentile(sorted, 95)), p99ms: fmt(percentile(sorted, 99)) };
    };
    /** `events` profile updates of each user given, interleaved, at --concurrency; the latencies of each. */
    const runPhase = async (users: { token: string }[]) => {
      const latencies = users.map(() => [] as number[]);
      const errors = users.map(() => 0);
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < events * users.length) {
            const i = next++ % users.length;
            const r = await updateProfile(users[i]!);
            latencies[i]!.push(r.ms);
            if (!r.ok) errors[i]!++;
          }
        }),
      );
      return users.map((_, i) => stats(latencies[i]!, errors[i]!));
    };

    process.stdout.write(`baseline: ${events} profile updates, user without webhooks, concurrency ${concurrency}\n`);
    const [baseline] = (await runPhase([without])) as [ReturnType<typeof stats>];
    for (let i = 0; i < hooks; i++) await addHook(`/h${i}`);
    // Let the baseline's events settle before the measured phase.
    await sleep(2_000);
    process.stdout.write(
      `with webhooks: ${events} profile updates of the user with ${hooks} webhooks (→ ${events * hooks} deliveries), interleaved with ${events} of the user without\n`,
    );
    const expected = events * hooks;
    const started = performance.now();
    const progress = setInterval(() => {
      const now = performance.now();
      process.stdout.write(`  … ${receiver.verified.size}/${expected} deliveries received after ${((now - started) / 1000).toFixed(0)} s\n`);
    }, PROGRESS_MS);
    let withWebhooks: ReturnType<typeof stats>;
    let alongside: ReturnType<typeof stats>;
    try {
      [withWebhooks, alongside] = (await runPhase([withHooks, without])) as [ReturnType<typeof stats>, ReturnType<typeof stats>];
      const sent = performance.now();
      const deadline = started + maxSeconds * 1000;
      // Done when everything arrived; given up at --max-seconds, or after 60 s without a new delivery.
      while (receiver.verified.size < expected && performance.now() < deadline && performance.now() - Math.max(receiver.lastAt, sent) < 60_000)
        await sleep(100);
    } finally {
      clearInterval(progress);
    }
    const received = receiver.verified.size;
    const seconds = ((received >= expected ? receiver.lastAt : performance.now()) - started) / 1000;

    // What Temporal and the history say about the deliveries of this run.
    const q = `WorkflowType = 'webhookDelivery' AND KeyflowUserId = '${withHooks.id}'`;
    const count = (extra: string) => countFlows(temporal.client, `${q}${extra}`);
    let workflows = { started: 0, completed: 0, success: 0, failure: 0 };
    const settle = Date.now() + 30_000;
    do {
      workflows = {
        started: await count(''),
        completed: await count(` AND ExecutionStatus = 'Completed'`),
        success: await count(` AND KeyflowState = 'success'`),
        failure: await count(` AND KeyflowState = 'failure'`),
      };
      if (workflows.completed >= expected + 1) break; // + the probe
      await sleep(1_000);
    } while (Date.now() < settle);
    const kept = (await Promise.all(created.map((h) => recentDeliveries(store, h._id)))).flat();

    const result = {
      events,
      webhooks: hooks,
      concurrency,
      expected,
      received,
      lost: expected - received,
      duplicates: receiver.duplicates,
      badSignatures: receiver.badSignatures,
      deliveriesPerSecond: Math.round(received / seconds),
      seconds: fmt(seconds),
      baseline,
      withWebhooks,
      /** The user without webhooks, in the same phase (same machine load). */
      withoutWebhooksAlongside: alongside,
      addedP99ms: fmt(withWebhooks.p99ms - baseline.p99ms),
      /** The request's own added cost, the machine load being equal. */
      addedP99SameLoadMs: fmt(withWebhooks.p99ms - alongside.p99ms),
      // The probe's workflow is in these counts too (one more than `expected`).
      workflows,
      history: { kept: kept.length, failures: kept.filter((d) => !d.success).length },
    };
    process.stdout.write(
      [
        `profile update latency without webhooks: p50 ${baseline.p50ms} ms  p95 ${baseline.p95ms} ms  p99 ${baseline.p99ms} ms  (errors ${baseline.errors})`,
        `profile update latency with ${hooks} webhooks: p50 ${withWebhooks.p50ms} ms  p95 ${withWebhooks.p95ms} ms  p99 ${withWebhooks.p99ms} ms  (errors ${withWebhooks.errors})`,
        `  the user without webhooks, same phase: p50 ${alongside.p50ms} ms  p95 ${alongside.p95ms} ms  p99 ${alongside.p99ms} ms  (errors ${alongside.errors})`,
        `added p99: ${result.addedP99ms} ms over the baseline; ${result.addedP99SameLoadMs} ms over the user without webhooks at the same load`,
        `deliveries: ${received}/${expected} received and verified in ${result.seconds} s = ${result.deliveriesPerSecond}/s; lost ${result.lost}, duplicates ${result.duplicates}, bad signatures ${result.badSignatures}`,
        `workflows (incl. the probe): ${workflows.started} started, ${workflows.completed} completed, ${workflows.success} success, ${workflows.failure} failure; history kept ${result.history.kept} records, ${result.history.failures} failures`,
      ].join('\n') + '\n',
    );
    process.stdout.write(JSON.stringify({ bench: 'webhooks', ...result }) + '\n');
  } finally {
    for (const h of created) await deleteWebhook(store, h._id).catch(() => {});
    await receiver.close();
    await temporal.close();
    await store.close();
  }
}
