// RefreshFamily: revocation by update or signal, expiry at expiresAt, each
// ending in one endFamily activity naming the hashes it knows (whose tokens,
// and their successors, it deletes). Rotation is decided in MongoDB by the api;
// a `rotate` update (from an api of an earlier version) is answered by the
// rotateInStore activity, and its reuse revokes the family. How the family
// rotated before that change is what the recorded histories replay
// (test/unit/workflow-replay.test.ts).
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { MAX_CARRIED_SUPERSEDED, refreshFamily } from '../../../workflows/refresh-family.js';
import { flowState, latch, startWorkflowWorker, type Latch, type WorkflowWorker } from '../../support/workflow-env.js';

let w: WorkflowWorker;
/** Grants whose revocation write waits for the test. */
const held = new Map<string, Latch>();

beforeAll(async () => {
  w = await startWorkflowWorker('refresh', {
    async endFamily(a: { grantId: string }) {
      await held.get(a.grantId)?.pass();
    },
    // As the store decides: `reused:` hashes were rotated before, `retry:` ones are retried, others rotate.
    async rotateInStore(r: { presentedHash: string }) {
      if (r.presentedHash.startsWith('reused:')) return { status: 'reused' };
      if (r.presentedHash.startsWith('retry:')) return { status: 'rotated', replacedHash: 'h-replaced' };
      return { status: 'rotated' };
    },
  });
});
afterAll(() => w?.stop());

function input(overrides: { lifetimeMs?: number; rotationsPerRun?: number; superseded?: string[] } = {}) {
  const { lifetimeMs = 60_000, ...rest } = overrides;
  const grantId = randomUUID();
  return { grantId, clientId: 'rp-1', userId: 'u1', scope: ['openid', 'offline_access'], currentHash: 'h0', expiresAt: Date.now() + lifetimeMs, ...rest };
}

async function startFamily(i: ReturnType<typeof input>) {
  const handle = await w.start(refreshFamily, i, `grant:${i.grantId}`);
  const rotate = (presentedHash: string, newHash: string, retryWindowMs?: number) =>
    handle.executeUpdate('rotate', { args: [{ presentedHash, newHash, retryWindowMs }] });
  return { handle, rotate };
}

it('answers a rotate update from the rotation claims in MongoDB (rotateInStore), and counts no rotation of its own', async () => {
  const i = input();
  const { handle, rotate } = await startFamily(i);
  expect(await rotate('h0', 'h1', 30_000)).toEqual({ status: 'rotated' });
  expect(await rotate('retry:h0', 'h2', 30_000)).toEqual({ status: 'rotated', replacedHash: 'h-replaced' });
  expect(w.callsOf(handle.workflowId).map((c) => [c.name, c.arg])).toEqual([
    ['rotateInStore', { grantId: i.grantId, presentedHash: 'h0', newHash: 'h1', retryWindowMs: 30_000 }],
    ['rotateInStore', { grantId: i.grantId, presentedHash: 'retry:h0', newHash: 'h2', retryWindowMs: 30_000 }],
  ]);
  expect(await handle.query('state')).toEqual({ grantId: i.grantId, state: 'active', rotations: 0, expiresAt: i.expiresAt });
  expect(await flowState(handle)).toBe('active');
  expect(await patchesOf(handle)).toContain('refresh-family-rotations-in-store');
  expect(await handle.executeUpdate('revoke', { args: [{ reason: 'test over' }] })).toEqual({ revoked: true });
  expect(await handle.result()).toBe('revoked');
  expect(w.callsOf(handle.workflowId).at(-1)).toMatchObject({
    name: 'endFamily',
    arg: { grantId: i.grantId, outcome: 'revoked', reason: 'test over', hashes: ['h0'] },
  });
});

it('a rotate update the store says is reuse revokes the family once; nothing rotates meanwhile', async () => {
  const i = input();
  const revoking = latch();
  held.set(i.grantId, revoking);
  const { handle, rotate } = await startFamily(i);
  const reuse = rotate('reused:h0', 'x');
  await revoking.reached;
  expect(await rotate('h1', 'h2')).toEqual({ status: 'invalid', reason: 'revoked' });
  expect(await handle.executeUpdate('revoke', { args: [{ reason: 'again' }] })).toEqual({ revoked: false });
  revoking.open();
  expect(await reuse).toEqual({ status: 'reused' });
  expect(await handle.result()).toBe('revoked');
  expect(
    w
      .callsOf(handle.workflowId)
      .filter((c) => c.name === 'endFamily')
      .map((c) => c.arg),
  ).toEqual([{ grantId: i.grantId, outcome: 'revoked', reason: 'refresh token reused', hashes: ['h0'] }]);
  expect(await flowState(handle)).toBe('revoked');
});

it('the revokeGrant signal revokes, and the workflow waits for the revocation write', async () => {
  const i = input();
  const revoking = latch();
  held.set(i.grantId, revoking);
  const { handle } = await startFamily(i);
  await handle.signal('revokeGrant', { reason: 'user deleted' });
  await revoking.reached;
  expect((await handle.describe()).status.name).toBe('RUNNING');
  revoking.open();
  expect(await handle.result()).toBe('revoked');
  expect(w.callsOf(handle.workflowId).map((c) => c.arg)).toEqual([{ grantId: i.grantId, outcome: 'revoked', reason: 'user deleted', hashes: ['h0'] }]);
});

it('expires at its absolute expiry', async () => {
  const i = input({ lifetimeMs: 1_500 });
  const { handle } = await startFamily(i);
  expect(await handle.result()).toBe('expired');
  expect(w.callsOf(handle.workflowId).map((c) => [c.name, c.arg])).toEqual([['endFamily', { grantId: i.grantId, outcome: 'expired', hashes: ['h0'] }]]);
  expect(await flowState(handle)).toBe('expired');
});

it('a run carried on from before the change names its current hash and the superseded ones it was handed at its end', async () => {
  const carried = Array.from({ length: MAX_CARRIED_SUPERSEDED }, (_, n) => `s${n}`);
  const i = input({ rotationsPerRun: 10, superseded: carried });
  const { handle } = await startFamily(i);
  await handle.signal('revokeGrant', { reason: 'test over' });
  expect(await handle.result()).toBe('revoked');
  const [end] = w.callsOf(handle.workflowId).map((c) => c.arg as { hashes: string[] });
  expect(end!.hashes).toEqual(['h0', ...carried]);
});

/** The ids of the patch markers in a workflow's history. */
async function patchesOf(handle: WorkflowHandle): Promise<string[]> {
  const events = (await handle.fetchHistory()).events ?? [];
  return events.flatMap((e) => {
    const payload = e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0];
    return payload ? [defaultPayloadConverter.fromPayload<{ id: string }>(payload).id] : [];
  });
}
