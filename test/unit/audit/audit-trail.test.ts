// The recorder's group commit without a database: records awaited one after
// the other (each continuation queues the next before the writer has ended)
// are all written, and records made while a write is in flight go together,
// in one inbox document per RECORDS_PER_PENDING_DOC records.
import { createAuditTrail, NOTE_WAIT_MS } from '../../../lib/audit/audit-trail.js';
import { createLogger } from '../../../lib/runtime/log.js';
import type { AuditEntry } from '../../../lib/model/audit-events.js';
import type { PendingAuditDoc } from '../../../lib/model/audit-storage.js';
import { RECORDS_PER_PENDING_DOC } from '../../../lib/store/audit-records.js';
import type { Store } from '../../../lib/store/db.js';

/** A store whose inbox keeps each insert's records (`inserts`) and documents (`docs`). */
function fakeStore() {
  const inserts: AuditEntry[][] = [];
  const docs: PendingAuditDoc[][] = [];
  const insertMany = async (written: PendingAuditDoc[]) => {
    docs.push(written);
    inserts.push(written.flatMap((d) => d.records));
  };
  const store = { auditPending: { insertMany } } as unknown as Store;
  return { store, inserts, docs };
}

it('writes every record of a caller that awaits each before the next', async () => {
  const { store, inserts } = fakeStore();
  const audit = createAuditTrail({ store, log: createLogger('error') });
  for (let i = 0; i < 20; i++) await audit.record('user.enabled', { actor: { type: 'operator' }, subject: { userId: `u${i}` } });
  expect(inserts.flat()).toHaveLength(20);
});

it('writes records made while a write is in flight in one insert, and flush waits for notes', async () => {
  const { store, inserts } = fakeStore();
  const audit = createAuditTrail({ store, log: createLogger('error') });
  await Promise.all([1, 2, 3].map((n) => audit.record('user.disabled', { actor: { type: 'operator' }, subject: { userId: `u${n}` } })));
  // The first is written at once; the two that came meanwhile, together.
  expect(inserts.map((group) => group.length)).toEqual([1, 2]);
  audit.note('user.enabled', { actor: { type: 'operator' } });
  await audit.flush();
  expect(inserts.flat()).toHaveLength(4);
});

it('records nothing when switched off (AUDIT_TRAIL=off, for measuring its cost), and says so', async () => {
  const { store, inserts } = fakeStore();
  const warnings: string[] = [];
  const audit = createAuditTrail({ store, log: createLogger('warn', (line) => warnings.push(line)), recording: false });
  await audit.record('user.disabled', { actor: { type: 'operator' } });
  audit.note('user.enabled', { actor: { type: 'operator' } });
  await audit.flush();
  expect(inserts).toEqual([]);
  expect(warnings).toEqual([expect.stringContaining('AUDIT_TRAIL=off')]);
});

it('lets noted records wait a moment to share one insert, and a recorded one takes them along at once', async () => {
  const { store, inserts } = fakeStore();
  const audit = createAuditTrail({ store, log: createLogger('error') });
  for (let i = 0; i < 3; i++) audit.note('token.issued', { actor: { type: 'client', clientId: 'c' } });
  expect(inserts).toEqual([]);
  await new Promise((resolve) => setTimeout(resolve, NOTE_WAIT_MS * 3));
  expect(inserts.map((group) => group.length)).toEqual([3]);
  audit.note('code.issued', { actor: { type: 'user', userId: 'u' } });
  await audit.record('login.failed', { outcome: 'failure', actor: { type: 'anonymous' } });
  expect(inserts.map((group) => group.length)).toEqual([3, 2]);
});

it('writes a group as one inbox document (split past RECORDS_PER_PENDING_DOC records), named by its first record, in order', async () => {
  const { store, inserts, docs } = fakeStore();
  const audit = createAuditTrail({ store, log: createLogger('error') });
  const many = RECORDS_PER_PENDING_DOC * 2 + 5;
  for (let i = 0; i < many; i++) audit.note('token.issued', { actor: { type: 'client', clientId: `c${i}` } });
  await audit.flush();
  expect(docs.map((group) => group.map((d) => d.records.length))).toEqual([[RECORDS_PER_PENDING_DOC, RECORDS_PER_PENDING_DOC, 5]]);
  for (const d of docs[0]!) expect(d._id).toBe(d.records[0]!.id);
  expect(inserts[0]!.map((r) => r.actor.clientId)).toEqual(Array.from({ length: many }, (_, i) => `c${i}`));
});
