// The audit trail's chain on a database of its own: records are found by
// every filter and paged without loss or repeat; the AuditSealer workflow
// seals them (resuming a batch a crash left half done) into a chain that
// `keyflow audit verify` passes; each record changed, removed or inserted in
// MongoDB, a batch changed, and batches cut off the end are reported (exit 1);
// an export verifies offline and fails when a line is changed; retention
// deletes old batches behind a signed checkpoint and the chain still verifies.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Store } from '../../../lib/store/db.js';
import { applyRetention } from '../../../lib/audit/audit-retention.js';
import { searchAudit, type AuditFilter } from '../../../lib/audit/audit-search.js';
import { sealNextBatch, sealPending } from '../../../lib/audit/audit-sealing.js';
import { ensureAuditSealer, sealerHead } from '../../../lib/flows/audit-sealer.js';
import type { AuditEventName } from '../../../lib/model/audit-events.js';
import { auditSealerWorkflowId } from '../../../lib/model/audit-sealer.js';
import { runInRequest } from '../../../lib/runtime/request-context.js';
import { readMeta } from '../../../lib/store/audit-records.js';
import type { AuditIndexDoc, SealedAuditDoc } from '../../../lib/model/audit-storage.js';
import { auditRecords } from '../../support/audit.js';
import { runCli } from '../../support/cli.js';
import { skipTime } from '../../support/clock.js';
import { testDatabase } from '../../support/database.js';
import { eventually, useTestApi } from '../../support/harness.js';
import { isolatedEnv, taskQueueOf } from '../../support/test-worker.js';

const database = testDatabase('audit_chain');
const env = database.env;
// The sealer this file starts on its task queue stops with the api.
const api = useTestApi(env, {
  beforeStop: (running) =>
    running.deps.temporal.client.workflow
      .getHandle(auditSealerWorkflowId(taskQueueOf(database.name)))
      .terminate('test over')
      .catch(() => undefined),
});
const store = (): Store => api.deps.store;
const signer = () => api.deps.signer;

const USERS = ['u-ann', 'u-bob', 'u-cy'];
const CLIENTS = ['c-one', 'c-two'];
const EVENTS: AuditEventName[] = ['login', 'login.failed', 'logout', 'token.issued', 'consent.granted'];
const IPS = ['203.0.113.1', '203.0.113.2'];

/** `n` records spread over users, clients, events, outcomes and addresses. */
async function recordMany(n: number, tag: string): Promise<void> {
  for (let i = 0; i < n; i++) {
    const event = EVENTS[i % EVENTS.length]!;
    const userId = USERS[i % USERS.length]!;
    const clientId = CLIENTS[i % CLIENTS.length]!;
    const ip = IPS[i % IPS.length]!;
    await new Promise<void>((resolve, reject) =>
      runInRequest({ ip, requestId: `${tag}-${i}`, userAgent: 'audit-chain-test' }, () => {
        api.deps.audit
          .record(event, {
            outcome: event === 'login.failed' ? 'failure' : 'success',
            actor: { type: 'user', userId },
            subject: { userId, clientId },
            data: { client_id: clientId },
          })
          .then(resolve, reject);
      }),
    );
  }
}

/** Every page of a search, following the cursors. */
async function allPages(filter: AuditFilter, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 500; pages++) {
    const page = await searchAudit(store(), filter, limit, cursor);
    ids.push(...page.records.map((r) => r.requestId ?? r.id));
    if (!page.next) return ids;
    cursor = page.next;
  }
  throw new Error('too many pages');
}

/** What a search must find: every record of the test matching the filter, newest first (inbox, then the chain backwards). */
async function expected(filter: AuditFilter): Promise<string[]> {
  const all = (await auditRecords(store(), { userAgent: 'audit-chain-test' })) as (SealedAuditDoc & { seq?: number })[];
  const matches = all.filter(
    (r) =>
      (!filter.userId || r.actor.userId === filter.userId || r.subject.userId === filter.userId) &&
      (!filter.clientId || r.actor.clientId === filter.clientId || r.subject.clientId === filter.clientId) &&
      (!filter.event || (filter.event.endsWith('.*') ? r.event.startsWith(filter.event.slice(0, -2)) : r.event === filter.event)) &&
      (!filter.outcome || r.outcome === filter.outcome) &&
      (!filter.ip || r.ip === filter.ip),
  );
  const pending = matches.filter((r) => r.seq === undefined).sort((a, b) => (a.id < b.id ? 1 : -1));
  const sealed = matches.filter((r) => r.seq !== undefined).sort((a, b) => (a.seq - b.seq || a.idx - b.idx) * -1);
  return [...pending, ...sealed].map((r) => r.requestId!);
}

/** A record line with its outcome turned around. */
const flipOutcome = (line: string) =>
  line.includes('"outcome":"success"')
    ? line.replace('"outcome":"success"', '"outcome":"failure"')
    : line.replace('"outcome":"failure"', '"outcome":"success"');

const verify = (...args: string[]) => runCli(['audit', 'verify', ...args], env);

it('finds records by user, client, event or prefix, outcome and IP, newest first, across the inbox and the chain, each page once', async () => {
  await recordMany(700, 'a');
  // Two batches sealed (500 + 200), then more records left in the inbox.
  while (await sealNextBatch({ store: store(), signer: signer() })) {
    /* seal all */
  }
  await recordMany(60, 'b');
  for (const filter of [
    {},
    { userId: 'u-bob' },
    { clientId: 'c-two' },
    { event: 'login.*' },
    { event: 'token.issued' },
    { outcome: 'failure' as const },
    { ip: IPS[1] },
    { userId: 'u-ann', event: 'login.*', ip: IPS[0] },
  ]) {
    const want = await expected(filter);
    expect(want.length).toBeGreaterThan(0);
    expect({ filter, found: await allPages(filter, 37) }).toEqual({ filter, found: want });
  }
  // A time range: nothing before `since`, nothing at or after `until`.
  const ours = await auditRecords(store(), { userAgent: 'audit-chain-test' });
  const times = ours.map((r) => r.time.getTime()).sort((a, b) => a - b);
  const since = new Date(times[100]!);
  const until = new Date(times[600]!);
  const page = await searchAudit(store(), { since, until }, 1000);
  const inRange = ours.filter((r) => r.time >= since && r.time < until).map((r) => r.requestId);
  expect(inRange.length).toBeGreaterThan(400);
  expect(page.records.map((r) => r.requestId).sort()).toEqual(inRange.sort());
  // The CLI: one JSON record per line, the cursor of the next page on stderr.
  const listed = await runCli(['audit', 'list', '--user', 'u-cy', '--event', 'login.*', '--limit', '5'], env);
  expect(listed.code).toBe(0);
  const lines = listed.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { event: string; subject: { user_id: string } });
  expect(lines).toHaveLength(5);
  for (const r of lines) expect([r.event.startsWith('login'), r.subject.user_id]).toEqual([true, 'u-cy']);
  expect(listed.stderr).toMatch(/--cursor s:|--cursor p:/);
  const bad = await runCli(['audit', 'list', '--event', 'nope.*'], env);
  expect([bad.code, bad.stderr]).toEqual([2, expect.stringMatching(/--event: no audit event matches/)]);
}, 240_000);

it('the sealer workflow resumes a batch a crash left half done; the chain then verifies, its end checked against Temporal', async () => {
  await recordMany(40, 'c');
  // A sealer that dies while indexing: its batch is claimed, its records copied, the inbox not yet emptied.
  const dying: Store = {
    ...store(),
    auditIndex: new Proxy(store().auditIndex, {
      get(target, prop, receiver) {
        // Half of the batch's index documents are written; the worker dies before the rest.
        if (prop === 'insertMany')
          return async (docs: AuditIndexDoc[], options: object) => {
            if (docs[0]?.seq === undefined) return target.insertMany(docs, options); // the new keys' heads
            await target.insertMany(docs.slice(0, Math.ceil(docs.length / 2)), options);
            throw new Error('worker killed');
          };
        return Reflect.get(target, prop, receiver) as unknown;
      },
    }),
  };
  await expect(sealNextBatch({ store: dying, signer: signer() })).rejects.toThrow('worker killed');
  const claimed = await readMeta(store(), 'head');
  // The real sealer (the test's worker runs its activities) finishes that batch and seals the rest.
  await ensureAuditSealer({ client: api.deps.temporal.client, taskQueue: taskQueueOf(database.name) }, { intervalMs: 200, retentionDays: 0 });
  await eventually(async () => {
    expect(await store().auditPending.countDocuments({})).toBe(0);
    const head = await readMeta(store(), 'head');
    expect(head!.seq).toBeGreaterThan(claimed!.seq);
    expect(await sealerHead({ client: api.deps.temporal.client, taskQueue: taskQueueOf(database.name) })).toEqual({ seq: head!.seq, hash: head!.hash });
  }, 60_000);
  const ok = await verify();
  expect(ok.code).toBe(0);
  expect(JSON.parse(ok.stdout)).toMatchObject({ verified: true, records: 800, problems: 0 });
  // The half-written index was finished, not doubled: each record found once.
  for (const filter of [{ userId: 'u-ann' }, { ip: IPS[0] }, { event: 'logout' }]) expect(await allPages(filter, 50)).toEqual(await expected(filter));
}, 120_000);

it('reports each record changed, removed or inserted, each batch or its bounds changed, and batches cut off the end (exit 1); an untouched chain passes', async () => {
  const records = store().auditRecords;
  const batches = store().auditBatches;
  const target = (await records.findOne({ _id: '000000000001-00007' }))!;
  const failing = async (message: RegExp) => {
    const r = await verify();
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(message);
    expect(r.stderr).toMatch(/the audit chain failed verification/);
  };

  await records.updateOne({ _id: target._id }, { $set: { 'data.client_id': 'c-forged' } });
  await failing(/^record 000000000001-00007: changed after sealing$/m);
  await records.replaceOne({ _id: target._id }, target);

  await records.deleteOne({ _id: target._id });
  await failing(/^record 000000000001-00007: removed$/m);
  await records.insertOne(target);

  const head = (await readMeta(store(), 'head'))!;
  const lastBatch = (await batches.findOne({ _id: String(head.seq).padStart(12, '0') }))!;
  await records.insertOne({ ...target, _id: `${lastBatch._id}-${String(lastBatch.count).padStart(5, '0')}`, seq: head.seq, idx: lastBatch.count });
  await records.insertOne({ ...target, _id: '000000009999-00000', seq: 9999, idx: 0 });
  await failing(/^record \d{12}-\d{5}: inserted$/m);
  await records.deleteMany({ _id: { $in: [`${lastBatch._id}-${String(lastBatch.count).padStart(5, '0')}`, '000000009999-00000'] } });

  const first = (await batches.findOne({ _id: '000000000000' }))!;
  await batches.updateOne({ _id: first._id }, { $set: { count: first.count - 1 } });
  await failing(/^batch 0: changed after sealing \(count differ/m);
  await batches.replaceOne({ _id: first._id }, first);

  // A batch's bounds (what a time-range search reads) moved to hide it from a search by time, then removed.
  const bounds = store().auditBatchBounds;
  const firstBounds = (await bounds.findOne({ _id: first._id }))!;
  await bounds.updateOne({ _id: first._id }, { $set: { last: new Date(0) } });
  await failing(/^batch 0: its bounds differ from it/m);
  await bounds.deleteOne({ _id: first._id });
  await failing(/^batch 0: its bounds were removed/m);
  await bounds.insertOne(firstBounds);

  // The end cut off: the last batch and its records gone, the head moved back. Only Temporal's copy of the head shows it.
  const lastRecords = await records.find({ seq: head.seq }).toArray();
  await records.deleteMany({ seq: head.seq });
  await batches.deleteOne({ _id: lastBatch._id });
  const previous = (await batches.findOne({ _id: String(head.seq - 1).padStart(12, '0') }))!;
  await store().auditMeta.updateOne({ _id: 'head' }, { $set: { seq: previous.seq, hash: previous.hash } });
  await failing(new RegExp(`the chain ends at batch ${previous.seq}, but the sealer \\(Temporal\\) sealed up to batch ${head.seq}`));
  await records.insertMany(lastRecords);
  await batches.insertOne(lastBatch);
  await store().auditMeta.updateOne({ _id: 'head' }, { $set: { seq: head.seq, hash: head.hash } });

  expect((await verify()).code).toBe(0);
}, 120_000);

it('an export verifies offline, with the keys it names or a pinned JWK Set; a changed line or a foreign key fails it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-export-'));
  const exported = await runCli(['audit', 'export'], env);
  expect(exported.code).toBe(0);
  const file = path.join(dir, 'audit.jsonl');
  fs.writeFileSync(file, exported.stdout);
  const offline = (...args: string[]) => runCli(['audit', 'verify', '--file', file, ...args], { ...isolatedEnv(env), MONGODB_URI: 'mongodb://127.0.0.1:1/' });
  const ok = await offline();
  expect([ok.code, JSON.parse(ok.stdout)]).toEqual([0, expect.objectContaining({ verified: true, records: 800 })]);
  expect(ok.stderr).toMatch(/trusting the keys the export names/);

  const jwks = path.join(dir, 'jwks.json');
  fs.writeFileSync(jwks, JSON.stringify(await (await fetch(`${api.url}/.well-known/jwks.json`)).json()));
  expect((await offline('--jwks', jwks)).code).toBe(0);
  fs.writeFileSync(jwks, JSON.stringify({ keys: [] }));
  const foreign = await offline('--jwks', jwks);
  expect([foreign.code, foreign.stdout]).toEqual([1, expect.stringMatching(/signed with a key that is not a site key/)]);

  const lines = exported.stdout.trim().split('\n');
  const i = lines.findIndex((l) => l.includes('"type":"record"'));
  fs.writeFileSync(file, [...lines.slice(0, i), flipOutcome(lines[i]!), ...lines.slice(i + 1)].join('\n'));
  const changed = await offline();
  expect([changed.code, changed.stdout]).toEqual([1, expect.stringMatching(/: changed after sealing$/m)]);
}, 120_000);

it('retention deletes the batches older than it behind a signed checkpoint; the rest still verifies and is found', async () => {
  const before = (await readMeta(store(), 'head'))!;
  skipTime(10 * 86_400_000);
  await recordMany(20, 'later');
  await sealPending({ store: store(), signer: signer() }, 30_000);
  const result = await applyRetention({ store: store(), signer: signer(), audit: api.deps.audit }, 5);
  expect(result.deletedBatches).toBe(before.seq + 1);
  expect(await readMeta(store(), 'checkpoint')).toMatchObject({ seq: before.seq + 1, jws: expect.any(String) });
  expect(await store().auditRecords.countDocuments({ seq: { $lte: before.seq } })).toBe(0);
  await sealPending({ store: store(), signer: signer() }, 30_000);
  const ok = await verify();
  expect([ok.code, JSON.parse(ok.stdout)]).toEqual([0, expect.objectContaining({ verified: true, from_batch: before.seq + 1 })]);
  expect((await searchAudit(store(), { userId: 'u-ann' }, 1000)).records.every((r) => r.requestId?.startsWith('later'))).toBe(true);
  expect(await auditRecords(store(), { event: 'audit.retention' })).toEqual([
    expect.objectContaining({ actor: { type: 'system' }, data: { deleted_batches: before.seq + 1, first_batch: before.seq + 1 } }),
  ]);
  // A checkpoint rewritten without the site's key fails the verification.
  await store().auditMeta.updateOne({ _id: 'checkpoint' }, { $set: { seq: 0 } });
  const forged = await verify();
  expect([forged.code, forged.stdout]).toEqual([1, expect.stringMatching(/^checkpoint: changed after it was signed$/m)]);
}, 120_000);
