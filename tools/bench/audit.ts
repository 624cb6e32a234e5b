// `npm run bench -- audit [--records N] [--dir DIR]`: the audit trail at
// volume, on a FerretDB of its own (no `npm start` needed). Fills N records
// (default 1,000,000: 20,000 users, 500 clients, 2,000 addresses, the
// catalogue's busiest events, spread over 30 days) through the product's path
// (the inbox, then the sealer: chain, signed heads, index), then measures the
// p95 of a user's last 100 records and of a one-hour time-range page, and the
// verification rate. `--dir` keeps the database between runs: a fill already
// there is reused (the chain's head says how many records it has).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { siteVerificationKeys } from '../../lib/audit/audit-keys.js';
import { searchAudit, type AuditFilter } from '../../lib/audit/audit-search.js';
import { sealNextBatch } from '../../lib/audit/audit-sealing.js';
import { newAuditId } from '../../lib/audit/audit-trail.js';
import { verifyStoredChain } from '../../lib/audit/audit-verify.js';
import { Keyring } from '../../lib/keys/keyring.js';
import { createMlDsa65 } from '../../lib/keys/mldsa.js';
import { Signer } from '../../lib/keys/signer.js';
import { AUDIT_CATALOGUE, type AuditEntry, type AuditEventName } from '../../lib/model/audit-events.js';
import { loadKek } from '../../lib/security/kek.js';
import { insertPending, readMeta } from '../../lib/store/audit-records.js';
import { newIndexCache } from '../../lib/store/audit-index.js';
import { openStore, type Store } from '../../lib/store/db.js';
import { startFerretDb } from '../embedded/servers.js';
import { freePort } from '../embedded/ports.js';
import { percentile } from './common.js';

const BATCH = 500;
const DAYS = 30;
const USERS = 20_000;
const CLIENTS = 500;
const IPS = 2_000;
/** The mix of a busy site: mostly token issuance and sign-ins. */
const MIX: [AuditEventName, number][] = [
  ['token.issued', 40],
  ['login', 20],
  ['code.issued', 15],
  ['code.redeemed', 15],
  ['login.failed', 5],
  ['consent.granted', 3],
  ['logout', 2],
];
const SAMPLES = 50;

function eventAt(i: number): AuditEventName {
  let n = i % 100;
  for (const [event, weight] of MIX) {
    if (n < weight) return event;
    n -= weight;
  }
  return 'login';
}

/** Record `i` of `total`: its time spread evenly over the 30 days before `end`. */
function entry(i: number, total: number, end: number): AuditEntry {
  const time = new Date(end - DAYS * 86_400_000 + Math.floor((i / total) * DAYS * 86_400_000));
  const event = eventAt(i);
  const userId = `user-${(i * 7919) % USERS}`;
  const clientId = `client-${(i * 104_729) % CLIENTS}`;
  return {
    id: newAuditId(time),
    time,
    event,
    stream: AUDIT_CATALOGUE[event].stream,
    outcome: event === 'login.failed' ? 'failure' : 'success',
    actor: event.startsWith('code.redeemed') || event === 'token.issued' ? { type: 'client', clientId } : { type: 'user', userId },
    subject: { userId, clientId },
    ip: `198.51.${Math.floor(((i * 31) % IPS) / 250)}.${(i * 31) % 250}`,
    userAgent: 'bench',
    requestId: `bench-${i}`,
    data: { client_id: clientId },
  };
}

async function timed<T>(f: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now();
  const value = await f();
  return [performance.now() - t, value];
}

export async function auditBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { records: { type: 'string', default: '1000000' }, dir: { type: 'string' } } });
  const total = Number(values.records);
  const dir = values.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'keyflow-bench-audit-'));
  fs.mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const ferret = await startFerretDb({ port, dataDir: path.join(dir, 'ferretdb'), output: 'ignore' });
  const store: Store = openStore({ mongo: { uri: `mongodb://127.0.0.1:${port}/`, database: 'keyflow_bench_audit', embedded: false, port } });
  try {
    const kekFile = path.join(dir, 'kek');
    if (!fs.existsSync(kekFile)) fs.writeFileSync(kekFile, randomBytes(32).toString('base64'));
    const kek = loadKek(Buffer.from(fs.readFileSync(kekFile, 'utf8'), 'base64'), dir);
    const keyring = new Keyring(store, kek, createMlDsa65('noble'), ['RS256']);
    await keyring.ensureInitialKeys();
    const signer = new Signer(keyring, ['RS256']);

    // Fill: what the chain already holds is kept.
    const head = await readMeta(store, 'head');
    const have = head ? (head.seq + 1) * BATCH : 0;
    const end = Date.now();
    const fillStart = performance.now();
    let sealMs = 0;
    let lastReport = performance.now();
    const indexCache = newIndexCache(); // as the sealing worker keeps it between batches
    for (let i = have; i < total; i += BATCH) {
      const entries = Array.from({ length: Math.min(BATCH, total - i) }, (_, k) => entry(i + k, total, end));
      await insertPending(store, entries);
      const [ms] = await timed(() => sealNextBatch({ store, signer, indexCache }, BATCH));
      sealMs += ms;
      if (performance.now() - lastReport > 30_000) {
        lastReport = performance.now();
        process.stderr.write(
          `  filled ${i + entries.length} of ${total} (${Math.round(((i + entries.length - have) / (performance.now() - fillStart)) * 1000)} records/s)\n`,
        );
      }
    }
    const filled = total - have;
    const fillSeconds = (performance.now() - fillStart) / 1000;

    // Queries: a user's last 100; a one-hour page of everything; a prefix for a client.
    const measure = async (label: string, filterOf: (k: number) => AuditFilter, limit: number) => {
      const ms: number[] = [];
      let found = 0;
      for (let k = 0; k < SAMPLES; k++) {
        const [t, page] = await timed(() => searchAudit(store, filterOf(k), limit));
        ms.push(t);
        found += page.records.length;
      }
      ms.sort((a, b) => a - b);
      return { label, p50: percentile(ms, 50), p95: percentile(ms, 95), meanRecords: found / SAMPLES };
    };
    const hour = (k: number) => new Date(end - ((k * 13) % (DAYS * 24)) * 3_600_000 - 3_600_000);
    const queries = [
      await measure("a user's last 100", (k) => ({ userId: `user-${(k * 397) % USERS}` }), 100),
      await measure('a one-hour page (100)', (k) => ({ since: hour(k), until: new Date(hour(k).getTime() + 3_600_000) }), 100),
      await measure("a client's login.* (100)", (k) => ({ clientId: `client-${k % CLIENTS}`, event: 'login.*' }), 100),
    ];

    const keys = await siteVerificationKeys(store, kek);
    const [verifyMs, report] = await timed(() => verifyStoredChain(store, keys));
    const result = {
      bench: 'audit',
      records: total,
      filled,
      fill_records_per_s: filled ? Math.round(filled / fillSeconds) : null,
      seal_records_per_s: filled ? Math.round(filled / (sealMs / 1000)) : null,
      queries: queries.map((q) => ({ query: q.label, p50_ms: Math.round(q.p50), p95_ms: Math.round(q.p95), records: q.meanRecords })),
      verify_records_per_s: Math.round(report.records / (verifyMs / 1000)),
      verify_problems: report.problems.length,
    };
    process.stdout.write(
      `audit trail, ${total} records (${filled} filled now, ${result.fill_records_per_s ?? '-'} records/s; sealing alone ${result.seal_records_per_s ?? '-'} records/s)\n`,
    );
    for (const q of result.queries) process.stdout.write(`  ${q.query.padEnd(26)} p50 ${q.p50_ms} ms  p95 ${q.p95_ms} ms  (${q.records} records a page)\n`);
    process.stdout.write(`  verify: ${result.verify_records_per_s} records/s, ${result.verify_problems} problems\n`);
    process.stdout.write(JSON.stringify(result) + '\n');
  } finally {
    await store.close();
    await ferret.stop();
    if (!values.dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}
