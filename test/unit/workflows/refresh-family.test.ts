// RefreshFamily: rotations are serial updates on hashes (rotate the current
// one, reuse of a superseded one revokes the grant), revocation by update or
// signal, expiry at expiresAt, and continue-as-new every rotationsPerRun
// rotations carrying the current hash, the count and the newest superseded.
// Its end (revocation, expiry) is one endFamily activity naming the hashes it
// knows, whose tokens it deletes. Within the retry window the update names, the
// token the newest rotation superseded gets a fresh successor once more.
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

it('rotates the current hash only; an unknown hash is invalid; the state query counts rotations', async () => {
  const i = input();
  const { handle, rotate } = await startFamily(i);
  expect(await rotate('h0', 'h1')).toEqual({ status: 'rotated' });
  expect(await rotate('nope', 'h2')).toEqual({ status: 'invalid', reason: 'unknown' });
  expect(await rotate('h1', 'h2')).toEqual({ status: 'rotated' });
  expect(await handle.query('state')).toEqual({ grantId: i.grantId, state: 'active', rotations: 2, expiresAt: i.expiresAt });
  expect(await flowState(handle)).toBe('active');
  expect(await handle.executeUpdate('revoke', { args: [{ reason: 'test over' }] })).toEqual({ revoked: true });
  expect(await handle.result()).toBe('revoked');
  expect(w.callsOf(handle.workflowId).map((c) => [c.name, c.arg])).toEqual([
    ['endFamily', { grantId: i.grantId, outcome: 'revoked', reason: 'test over', hashes: ['h2', 'h0', 'h1'] }],
  ]);
});

it('a superseded hash presented again is reuse: the grant is revoked once, and nothing rotates meanwhile', async () => {
  const i = input();
  const revoking = latch();
  held.set(i.grantId, revoking);
  const { handle, rotate } = await startFamily(i);
  expect(await rotate('h0', 'h1')).toEqual({ status: 'rotated' });
  const reuse = rotate('h0', 'x');
  await revoking.reached;
  expect(await rotate('h1', 'h2')).toEqual({ status: 'invalid', reason: 'revoked' });
  expect(await handle.executeUpdate('revoke', { args: [{ reason: 'again' }] })).toEqual({ revoked: false });
  revoking.open();
  expect(await reuse).toEqual({ status: 'reused' });
  expect(await handle.result()).toBe('revoked');
  expect(w.callsOf(handle.workflowId).map((c) => c.arg)).toEqual([
    { grantId: i.grantId, outcome: 'revoked', reason: 'refresh token reused', hashes: ['h1', 'h0'] },
  ]);
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
  const { handle, rotate } = await startFamily(i);
  expect(await rotate('h0', 'h1')).toEqual({ status: 'rotated' });
  expect(await handle.result()).toBe('expired');
  expect(w.callsOf(handle.workflowId).map((c) => [c.name, c.arg])).toEqual([['endFamily', { grantId: i.grantId, outcome: 'expired', hashes: ['h1', 'h0'] }]]);
  expect(await flowState(handle)).toBe('expired');
});

it('continues as new after rotationsPerRun rotations, carrying the current hash, the count and the newest superseded hashes', async () => {
  const i = input({ rotationsPerRun: 2, superseded: ['s1', 's2', 's3'] });
  const { handle, rotate } = await startFamily(i);
  const firstRun = handle.firstExecutionRunId;
  expect(await rotate('h0', 'h1')).toEqual({ status: 'rotated' });
  expect(await rotate('h1', 'h2')).toEqual({ status: 'rotated' });
  // The run is full: this rotation is accepted by the next run.
  expect(await rotate('h2', 'h3')).toEqual({ status: 'rotated' });
  const described = await handle.describe();
  expect(described.runId).not.toBe(firstRun);
  expect(await handle.query('state')).toEqual({ grantId: i.grantId, state: 'active', rotations: 3, expiresAt: i.expiresAt });

  const history = await handle.fetchHistory();
  const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
  expect(started.continuedExecutionRunId).toBe(firstRun);
  // At most rotationsPerRun superseded hashes are carried, the newest: s1–s3 are left to the projection.
  expect(defaultPayloadConverter.fromPayload(started.input!.payloads![0]!)).toEqual({
    ...i,
    currentHash: 'h2',
    superseded: ['h0', 'h1'],
    rotations: 2,
    lastRotation: { presentedHash: 'h1', at: expect.any(Number) },
  });
  expect(await rotate('s1', 'x')).toEqual({ status: 'invalid', reason: 'unknown' });
  expect(await rotate('h1', 'x')).toEqual({ status: 'reused' });
  expect(await handle.result()).toBe('revoked');
  // The next run's end deletes its current token and every superseded hash it knows (carried ones too).
  expect(w.callsOf(handle.workflowId).map((c) => c.arg)).toEqual([
    { grantId: i.grantId, outcome: 'revoked', reason: 'refresh token reused', hashes: ['h3', 'h0', 'h1', 'h2'] },
  ]);
});

it('names at most MAX_CARRIED_SUPERSEDED superseded hashes at its end, the newest', async () => {
  const carried = Array.from({ length: MAX_CARRIED_SUPERSEDED }, (_, n) => `s${n}`);
  const i = input({ rotationsPerRun: 10, superseded: carried });
  const { handle, rotate } = await startFamily(i);
  expect(await rotate('h0', 'h1')).toEqual({ status: 'rotated' });
  await handle.signal('revokeGrant', { reason: 'test over' });
  expect(await handle.result()).toBe('revoked');
  const [end] = w.callsOf(handle.workflowId).map((c) => c.arg as { hashes: string[] });
  expect(end!.hashes).toEqual(['h1', ...carried.slice(1), 'h0']);
});

it('without rotationsPerRun (families started before the limit) it never continues as new', async () => {
  const i = input();
  const { handle, rotate } = await startFamily(i);
  for (let n = 0; n < 4; n++) expect(await rotate(`h${n}`, `h${n + 1}`)).toEqual({ status: 'rotated' });
  expect((await handle.describe()).runId).toBe(handle.firstExecutionRunId);
  await handle.signal('revokeGrant', { reason: 'test over' });
  expect(await handle.result()).toBe('revoked');
});

/** The ids of the patch markers in a workflow's history. */
async function patchesOf(handle: WorkflowHandle): Promise<string[]> {
  const events = (await handle.fetchHistory()).events ?? [];
  return events.flatMap((e) => {
    const payload = e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0];
    return payload ? [defaultPayloadConverter.fromPayload<{ id: string }>(payload).id] : [];
  });
}

describe('the retry window', () => {
  it('gives the token just superseded, presented again within the window, a fresh successor; the one it replaces is then reuse', async () => {
    const i = input();
    const { handle, rotate } = await startFamily(i);
    expect(await rotate('h0', 'h1', 30_000)).toEqual({ status: 'rotated' });
    expect(await rotate('h0', 'h2', 30_000)).toEqual({ status: 'rotated', replacedHash: 'h1' });
    // Still within the window from h0's first rotation: a second retry replaces h2.
    expect(await rotate('h0', 'h3', 30_000)).toEqual({ status: 'rotated', replacedHash: 'h2' });
    expect(await rotate('h3', 'h4', 30_000)).toEqual({ status: 'rotated' });
    expect(await handle.query('state')).toMatchObject({ rotations: 4 });
    expect(await rotate('h1', 'x', 30_000)).toEqual({ status: 'reused' });
    expect(await handle.result()).toBe('revoked');
    expect(w.callsOf(handle.workflowId).map((c) => c.arg)).toEqual([
      { grantId: i.grantId, outcome: 'revoked', reason: 'refresh token reused', hashes: ['h4', 'h0', 'h1', 'h2', 'h3'] },
    ]);
    // The retry is versioned: its marker is in the history.
    expect(await patchesOf(handle)).toContain('refresh-family-retry-window');
  });

  it('takes an older token as reuse, even within the window', async () => {
    const i = input();
    const { handle, rotate } = await startFamily(i);
    expect(await rotate('h0', 'h1', 30_000)).toEqual({ status: 'rotated' });
    expect(await rotate('h1', 'h2', 30_000)).toEqual({ status: 'rotated' });
    expect(await rotate('h0', 'x', 30_000)).toEqual({ status: 'reused' });
    expect(await handle.result()).toBe('revoked');
  });

  it('takes the token just superseded as reuse after the window, and without a window', async () => {
    for (const [window, wait] of [
      [300, 500],
      [0, 0],
      [undefined, 0],
    ] as const) {
      const { handle, rotate } = await startFamily(input());
      expect(await rotate('h0', 'h1', window)).toEqual({ status: 'rotated' });
      await new Promise((r) => setTimeout(r, wait));
      expect([window, await rotate('h0', 'x', window)]).toEqual([window, { status: 'reused' }]);
      expect(await handle.result()).toBe('revoked');
      expect(await patchesOf(handle)).not.toContain('refresh-family-retry-window');
    }
  });

  it('retries across continue-as-new: the next run knows the newest rotation', async () => {
    const i = input({ rotationsPerRun: 2 });
    const { handle, rotate } = await startFamily(i);
    expect(await rotate('h0', 'h1', 30_000)).toEqual({ status: 'rotated' });
    expect(await rotate('h1', 'h2', 30_000)).toEqual({ status: 'rotated' });
    // The run is full: the next run takes the retry of h1.
    expect(await rotate('h1', 'h3', 30_000)).toEqual({ status: 'rotated', replacedHash: 'h2' });
    expect((await handle.describe()).runId).not.toBe(handle.firstExecutionRunId);
    expect(await rotate('h2', 'x', 30_000)).toEqual({ status: 'reused' });
    expect(await handle.result()).toBe('revoked');
  });
});
