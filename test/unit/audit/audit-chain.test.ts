// The chain's hashes: one canonical text per value (key order and Date vs its
// ISO string do not matter, anything else does), and a batch hash that moves
// with every record, its order, its number and what it follows.
import { batchHash, canonicalJson, GENESIS_HASH, recordHash } from '../../../lib/audit/audit-chain.js';
import { auditEventsMatching, AUDIT_CATALOGUE, AUDIT_EVENT_NAMES } from '../../../lib/model/audit-events.js';
import type { SealedAuditEntry } from '../../../lib/model/audit-events.js';

const record = (over: Partial<SealedAuditEntry> = {}): SealedAuditEntry => ({
  id: '0190000000000-abcd',
  time: new Date('2026-11-28T10:00:00.000Z'),
  event: 'login',
  stream: 'user',
  outcome: 'success',
  actor: { type: 'user', userId: 'u1' },
  subject: { userId: 'u1' },
  ip: '203.0.113.7',
  data: { method: 'password', amr: ['pwd'] },
  seq: 3,
  idx: 0,
  ...over,
});

it('writes one text per value: keys sorted at every level, a Date as its ISO string', () => {
  expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}');
  expect(canonicalJson({ at: new Date('2026-11-28T10:00:00Z') })).toBe(canonicalJson({ at: '2026-11-28T10:00:00.000Z' }));
  expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
});

it("a record's hash changes with any field and not with key order or how its time is typed", () => {
  const base = recordHash(record());
  expect(recordHash({ ...record(), time: '2026-11-28T10:00:00.000Z' as unknown as Date })).toBe(base);
  const reordered = Object.fromEntries(Object.entries(record()).reverse()) as unknown as SealedAuditEntry;
  expect(recordHash(reordered)).toBe(base);
  for (const changed of [
    record({ outcome: 'failure' }),
    record({ idx: 1 }),
    record({ seq: 4 }),
    record({ ip: '203.0.113.8' }),
    record({ data: { method: 'passkey', amr: ['pwd'] } }),
    record({ actor: { type: 'user', userId: 'u2' } }),
  ])
    expect(recordHash(changed)).not.toBe(base);
});

it("a batch's hash covers what it follows, its number and its records in order", () => {
  const hashes = [recordHash(record()), recordHash(record({ idx: 1, event: 'logout' }))];
  const h = batchHash(GENESIS_HASH, 0, hashes);
  expect(h).toMatch(/^[0-9a-f]{64}$/);
  expect(batchHash(GENESIS_HASH, 0, [...hashes].reverse())).not.toBe(h);
  expect(batchHash(GENESIS_HASH, 1, hashes)).not.toBe(h);
  expect(batchHash('1'.repeat(64), 0, hashes)).not.toBe(h);
  expect(batchHash(GENESIS_HASH, 0, hashes.slice(0, 1))).not.toBe(h);
});

it('the catalogue: names are lower-case dotted words, each with its stream; prefixes find their group', () => {
  for (const name of AUDIT_EVENT_NAMES) {
    expect(name).toMatch(/^[a-z_]+(\.[a-z_]+)*$/);
    expect(['user', 'admin']).toContain(AUDIT_CATALOGUE[name].stream);
  }
  expect(auditEventsMatching('login.*')).toEqual(['login', 'login.failed']);
  expect(auditEventsMatching('client.*')).toEqual(expect.arrayContaining(['client.created', 'client.deleted']));
  expect(auditEventsMatching('*')).toHaveLength(AUDIT_EVENT_NAMES.length);
  expect(auditEventsMatching('nope.*')).toEqual([]);
  expect(auditEventsMatching('login.fail')).toEqual([]);
});
