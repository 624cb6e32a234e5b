// StepUpChallenge: one transition out of `created` (confirm, deny, fail, or
// the challenge's expiry), then for an issued code one out of `issued`
// (redeem once, or the code's expiry). Each outcome is projected and audited
// by activities; the code's projection is written before confirm answers.
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { stepUpChallenge } from '../../../workflows/step-up-challenge.js';
import { flowState, latch, startWorkflowWorker, type Latch, type WorkflowWorker, recordHistory } from '../../support/workflow-env.js';

let w: WorkflowWorker;
/** Challenges whose audit records wait for the test (the workflow is still running then). */
const held = new Map<string, Latch>();
/** Challenges whose code projection cannot be written. */
const failingCode = new Set<string>();

beforeAll(async () => {
  w = await startWorkflowWorker('step-up', {
    async recordStepUpState() {},
    async recordStepUpCode(a: { challengeId: string }) {
      if (failingCode.has(a.challengeId)) throw ApplicationFailure.nonRetryable('projection unavailable');
    },
    async recordStepUpAudit(a: { challengeId: string }) {
      await held.get(a.challengeId)?.pass();
    },
  });
});
afterAll(() => w?.stop());

async function startChallenge(opts: { lifetimeMs?: number; codeTtlMs?: number } = {}) {
  const input = { challengeId: randomUUID(), clientId: 'bank', expiresAt: Date.now() + (opts.lifetimeMs ?? 60_000), codeTtlMs: opts.codeTtlMs ?? 60_000 };
  const handle = await w.start(stepUpChallenge, input, `challenge:${input.challengeId}`);
  const calls = () => w.callsOf(handle.workflowId).map((c) => [c.name, c.arg]);
  return { input, handle, calls };
}

const confirmation = { userId: 'u1', method: 'totp', codeHash: 'code-hash' } as const;

it('confirm issues the code (projected first), redeem succeeds once with the right hash', async () => {
  const { input, handle, calls } = await startChallenge();
  const { challengeId } = input;
  expect(await handle.query('state')).toEqual({ state: 'created', clientId: 'bank', userId: null, method: null });
  const confirmed = await handle.executeUpdate('confirm', { args: [confirmation] });
  expect(confirmed).toEqual({ ok: true, verifiedAt: expect.any(Number), codeExpiresAt: expect.any(Number) });
  const { verifiedAt, codeExpiresAt } = confirmed as { verifiedAt: number; codeExpiresAt: number };
  expect(codeExpiresAt - verifiedAt).toBe(input.codeTtlMs);
  expect(calls()[0]).toEqual(['recordStepUpCode', { challengeId, codeHash: 'code-hash', userId: 'u1', method: 'totp', verifiedAt, expiresAt: codeExpiresAt }]);
  // A second answer to the challenge is refused: it is no longer open.
  expect(await handle.executeUpdate('deny', { args: [{ userId: 'u1', reason: 'denied' }] })).toEqual({ ok: false, state: 'issued' });
  expect(await handle.executeUpdate('redeem', { args: [{ codeHash: 'another' }] })).toEqual({ status: 'refused', state: 'issued' });

  const auditRedeemed = latch();
  held.set(challengeId, auditRedeemed);
  expect(await handle.executeUpdate('redeem', { args: [{ codeHash: 'code-hash' }] })).toEqual({ status: 'redeemed' });
  await auditRedeemed.reached;
  expect(await handle.executeUpdate('redeem', { args: [{ codeHash: 'code-hash' }] })).toEqual({ status: 'refused', state: 'redeemed' });
  auditRedeemed.open();
  expect(await handle.result()).toBe('redeemed');
  const recorded = { challengeId, userId: 'u1', method: 'totp' };
  expect(calls().slice(1)).toEqual([
    // `issued` is audited only: the confirm handler projected it.
    ['recordStepUpAudit', { ...recorded, result: 'issued', at: expect.any(Number) }],
    ['recordStepUpState', { ...recorded, state: 'redeemed', codeHash: 'code-hash' }],
    ['recordStepUpAudit', { ...recorded, result: 'redeemed', at: expect.any(Number) }],
  ]);
  expect(await flowState(handle)).toBe('redeemed');
  await recordHistory(handle, 'step-up-challenge-confirmed-then-redeemed');
});

it('a code redeemed while its issue is still being audited is recorded as redeemed', async () => {
  const { input, handle } = await startChallenge();
  const auditIssued = latch();
  held.set(input.challengeId, auditIssued);
  expect(await handle.executeUpdate('confirm', { args: [confirmation] })).toMatchObject({ ok: true });
  await auditIssued.reached;
  expect(await handle.executeUpdate('redeem', { args: [{ codeHash: 'code-hash' }] })).toEqual({ status: 'redeemed' });
  auditIssued.open();
  expect(await handle.result()).toBe('redeemed');
  const calls = w.callsOf(handle.workflowId);
  const of = (name: string, field: string) => calls.filter((c) => c.name === name).map((c) => (c.arg as Record<string, unknown>)[field]);
  expect(of('recordStepUpAudit', 'result')).toEqual(['issued', 'redeemed']);
  expect(of('recordStepUpState', 'state')).toEqual(['redeemed']);
  expect(await flowState(handle)).toBe('redeemed');
  await recordHistory(handle, 'step-up-challenge-redeemed-while-issue-audited');
});

it('deny, deny for an error, and fail are terminal answers, and the first answer wins', async () => {
  for (const [update, arg, state] of [
    ['deny', { userId: 'u1', reason: 'denied' }, 'denied'],
    ['deny', { userId: null, reason: 'error' }, 'error'],
    ['fail', { userId: 'u1' }, 'failed'],
  ] as const) {
    const { input, handle, calls } = await startChallenge();
    const audit = latch();
    held.set(input.challengeId, audit);
    expect(await handle.executeUpdate(update, { args: [arg] })).toEqual({ ok: true });
    await audit.reached;
    expect(await handle.executeUpdate('confirm', { args: [confirmation] })).toEqual({ ok: false, state });
    audit.open();
    expect(await handle.result()).toBe(state);
    const userId = arg.userId;
    expect(calls()).toEqual([
      ['recordStepUpState', { challengeId: input.challengeId, state, userId, method: null, codeHash: null }],
      ['recordStepUpAudit', { challengeId: input.challengeId, userId, method: null, result: state, at: expect.any(Number) }],
    ]);
  }
});

it('a challenge nobody answers expires', async () => {
  const { input, handle, calls } = await startChallenge({ lifetimeMs: 1_000 });
  expect(await handle.result()).toBe('expired');
  expect(calls()).toEqual([
    ['recordStepUpState', { challengeId: input.challengeId, state: 'expired', userId: null, method: null, codeHash: null }],
    ['recordStepUpAudit', { challengeId: input.challengeId, userId: null, method: null, result: 'expired', at: expect.any(Number) }],
  ]);
  await recordHistory(handle, 'step-up-challenge-expired');
});

it('an issued code nobody redeems expires after its own lifetime', async () => {
  const { input, handle, calls } = await startChallenge({ codeTtlMs: 1_000 });
  expect(await handle.executeUpdate('confirm', { args: [{ ...confirmation, method: 'passkey' }] })).toMatchObject({ ok: true });
  expect(await handle.result()).toBe('code_expired');
  expect(calls().slice(-2)).toEqual([
    ['recordStepUpState', { challengeId: input.challengeId, state: 'code_expired', userId: 'u1', method: 'passkey', codeHash: 'code-hash' }],
    ['recordStepUpAudit', { challengeId: input.challengeId, userId: 'u1', method: 'passkey', result: 'code_expired', at: expect.any(Number) }],
  ]);
  await recordHistory(handle, 'step-up-challenge-code-expired');
});

it('a code whose projection cannot be written is an error, never a code', async () => {
  const { input, handle, calls } = await startChallenge();
  failingCode.add(input.challengeId);
  expect(await handle.executeUpdate('confirm', { args: [confirmation] })).toEqual({ ok: false, state: 'error' });
  expect(await handle.result()).toBe('error');
  expect(calls()[0]).toEqual(['recordStepUpCode', expect.objectContaining({ challengeId: input.challengeId, codeHash: 'code-hash' })]);
  // No projection of a usable code or a redemption follows.
  const states = w
    .callsOf(handle.workflowId)
    .filter((c) => c.name === 'recordStepUpState')
    .map((c) => (c.arg as { state: string }).state);
  expect(states.filter((s) => s === 'issued' || s === 'redeemed')).toEqual([]);
});

// `issued` is set only once the code's projection is written: the audit never
// records `issued` for a code no browser got, and `error` is projected and audited.
it('a code whose projection cannot be written is projected and audited as an error, never as issued', async () => {
  const { input, handle } = await startChallenge();
  failingCode.add(input.challengeId);
  expect(await handle.executeUpdate('confirm', { args: [confirmation] })).toEqual({ ok: false, state: 'error' });
  expect(await handle.result()).toBe('error');
  const calls = w.callsOf(handle.workflowId);
  const of = (name: string, field: string) => calls.filter((c) => c.name === name).map((c) => (c.arg as Record<string, unknown>)[field]);
  expect(of('recordStepUpAudit', 'result')).toEqual(['error']);
  expect(of('recordStepUpState', 'state')).toEqual(['error']);
  await recordHistory(handle, 'step-up-challenge-code-projection-failed');
});
