// DeviceAuthorization: pending until the /device page answers (approve or
// deny signal) or expiresAt; the redeem update hands an approval out once;
// every state change goes to the projection (recordDeviceState). With a
// refresh family in the redeem input, the workflow starts it as a child.
import { randomUUID } from 'node:crypto';
import { deviceAuthorization } from '../../../workflows/device-authorization.js';
import { refreshFamily } from '../../../workflows/refresh-family.js';
import { flowState, latch, startWorkflowWorker, type Latch, type WorkflowWorker, recordHistory } from '../../support/workflow-env.js';

let w: WorkflowWorker;
/** Flows whose projection of `redeemed` waits for the test (the workflow is still running then). */
const held = new Map<string, Latch>();

beforeAll(async () => {
  w = await startWorkflowWorker('device', {
    async recordDeviceState(a: { deviceCodeHash: string; state: string }) {
      if (a.state === 'redeemed') await held.get(a.deviceCodeHash)?.pass();
    },
    // The child RefreshFamily's activities.
    async endFamily() {},
  });
});
afterAll(() => w?.stop());

const approval = (userId: string) => ({ userId, authTime: 1_700_000_000_000, amr: ['pwd'], acr: '1', sid: 'sid-1' });

async function startFlow(lifetimeMs = 60_000) {
  const input = { deviceCodeHash: `hash-${randomUUID()}`, clientId: 'device-client', expiresAt: Date.now() + lifetimeMs };
  const handle = await w.start(deviceAuthorization, input, `device:${input.deviceCodeHash.slice(0, 32)}`);
  const projected = () => w.callsOf(handle.workflowId).map((c) => c.arg);
  /** Waits until `count` state changes are projected. */
  const projections = async (count: number) => (await w.waitForCalls(handle.workflowId, count)).map((c) => c.arg);
  return { input, handle, projected, projections };
}

it('approve then redeem: the approval is handed out once, each state projected in order', async () => {
  const flow = await startFlow();
  const { handle, input } = flow;
  const redeemedProjection = latch();
  held.set(input.deviceCodeHash, redeemedProjection);
  expect(await handle.query('state')).toEqual({ state: 'pending', clientId: 'device-client', userId: null, expiresAt: input.expiresAt });
  expect(await handle.executeUpdate('redeem', { args: [{ family: null }] })).toEqual({ status: 'refused', state: 'pending' });
  await handle.signal('approve', approval('u1'));
  expect(await flow.projections(1)).toEqual([{ deviceCodeHash: input.deviceCodeHash, state: 'approved', approval: approval('u1') }]);
  expect(await handle.query('state')).toEqual({ state: 'approved', clientId: 'device-client', userId: 'u1', expiresAt: input.expiresAt });
  expect(await handle.executeUpdate('redeem', { args: [{ family: null }] })).toEqual({ status: 'redeemed', approval: approval('u1'), familyStarted: false });
  // However close, a second redeem is refused.
  await redeemedProjection.reached;
  expect(await handle.executeUpdate('redeem', { args: [{ family: null }] })).toEqual({ status: 'refused', state: 'redeemed' });
  redeemedProjection.open();
  expect(await handle.result()).toBe('redeemed');
  expect(flow.projected()).toEqual([
    { deviceCodeHash: input.deviceCodeHash, state: 'approved', approval: approval('u1') },
    { deviceCodeHash: input.deviceCodeHash, state: 'redeemed', approval: approval('u1') },
  ]);
  expect(await flowState(handle)).toBe('redeemed');
  await recordHistory(handle, 'device-authorization-approved-then-redeemed');
});

it('a late answer changes nothing: a second approval or a denial after the first approval', async () => {
  const flow = await startFlow();
  await flow.handle.signal('approve', approval('u1'));
  await flow.handle.signal('approve', approval('u2'));
  await flow.handle.signal('deny');
  const redeemed = await flow.handle.executeUpdate('redeem', { args: [{ family: null }] });
  expect(redeemed).toEqual({ status: 'redeemed', approval: approval('u1'), familyStarted: false });
  expect(await flow.handle.result()).toBe('redeemed');
});

it('deny ends the flow as denied, with no approval projected', async () => {
  const flow = await startFlow();
  await flow.handle.signal('deny');
  expect(await flow.handle.result()).toBe('denied');
  expect(flow.projected()).toEqual([{ deviceCodeHash: flow.input.deviceCodeHash, state: 'denied', approval: null }]);
  await recordHistory(flow.handle, 'device-authorization-denied');
});

it('expires at expiresAt when nobody answers', async () => {
  const flow = await startFlow(1_000);
  expect(await flow.handle.result()).toBe('expired');
  expect(flow.projected()).toEqual([{ deviceCodeHash: flow.input.deviceCodeHash, state: 'expired', approval: null }]);
  expect(await flowState(flow.handle)).toBe('expired');
  await recordHistory(flow.handle, 'device-authorization-expired');
});

it('an approval not redeemed before expiresAt expires too (the timer runs from the start)', async () => {
  const flow = await startFlow(1_500);
  await flow.handle.signal('approve', approval('u1'));
  expect(await flow.handle.result()).toBe('expired');
  expect(flow.projected()).toEqual([
    { deviceCodeHash: flow.input.deviceCodeHash, state: 'approved', approval: approval('u1') },
    { deviceCodeHash: flow.input.deviceCodeHash, state: 'expired', approval: approval('u1') },
  ]);
});

function familyInput(userId: string) {
  return {
    grantId: randomUUID(),
    clientId: 'device-client',
    userId,
    scope: ['openid', 'offline_access'],
    resources: [],
    currentHash: 'h0',
    expiresAt: Date.now() + 60_000,
  };
}

it('redeem with a refresh family of the approving user starts it as an abandoned child', async () => {
  const flow = await startFlow();
  await flow.handle.signal('approve', approval('u1'));
  const family = familyInput('u1');
  expect(await flow.handle.executeUpdate('redeem', { args: [{ family }] })).toEqual({ status: 'redeemed', approval: approval('u1'), familyStarted: true });
  expect(await flow.handle.result()).toBe('redeemed');
  // The family outlives its parent, on the same task queue, with its input as given.
  const child = w.client.workflow.getHandle<typeof refreshFamily>(`grant:${family.grantId}`);
  const described = await child.describe();
  expect([described.type, described.status.name, described.taskQueue]).toEqual(['refreshFamily', 'RUNNING', w.taskQueue]);
  expect(await child.query('state')).toEqual({ grantId: family.grantId, state: 'active', expiresAt: family.expiresAt });
  expect(await flowState(child)).toBe('active');
  await child.signal('revokeGrant', { reason: 'test over' });
  expect(await child.result()).toBe('revoked');
  await recordHistory(flow.handle, 'device-authorization-redeem-starts-refresh-family');
});

it('redeem with a family of another user, or one whose workflow already runs, leaves the start to the api', async () => {
  const mismatch = await startFlow();
  await mismatch.handle.signal('approve', approval('u1'));
  const other = familyInput('u2');
  expect(await mismatch.handle.executeUpdate('redeem', { args: [{ family: other }] })).toEqual({
    status: 'redeemed',
    approval: approval('u1'),
    familyStarted: false,
  });
  await expect(w.client.workflow.getHandle(`grant:${other.grantId}`).describe()).rejects.toThrow(/not found/i);

  const taken = familyInput('u1');
  const existing = await w.start(refreshFamily, taken, `grant:${taken.grantId}`);
  const flow = await startFlow();
  await flow.handle.signal('approve', approval('u1'));
  expect(await flow.handle.executeUpdate('redeem', { args: [{ family: taken }] })).toEqual({
    status: 'redeemed',
    approval: approval('u1'),
    familyStarted: false,
  });
  expect(await flow.handle.result()).toBe('redeemed');
  await existing.signal('revokeGrant', { reason: 'test over' });
  expect(await existing.result()).toBe('revoked');
});
