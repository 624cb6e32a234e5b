// RefreshFamily: revocation by update or signal, expiry at expiresAt, each
// ending in one endFamily activity naming the family's first token (whose
// successors the activity finds along the rotation claims). Rotation is the
// api's, in MongoDB: the workflow takes no rotate update.
import { randomUUID } from 'node:crypto';
import { familyStateQuery, revokeFamilySignal, revokeFamilyUpdate } from '../../../lib/temporal/flow-messages.js';
import { refreshFamily } from '../../../workflows/refresh-family.js';
import { flowState, latch, recordHistory, startWorkflowWorker, type Latch, type WorkflowWorker } from '../../support/workflow-env.js';

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

function input(lifetimeMs = 60_000) {
  const grantId = randomUUID();
  return { grantId, clientId: 'rp-1', userId: 'u1', scope: ['openid', 'offline_access'], resources: [], currentHash: 'h0', expiresAt: Date.now() + lifetimeMs };
}

const startFamily = (i: ReturnType<typeof input>) => w.start(refreshFamily, i, `grant:${i.grantId}`);

it('is revoked by its update once: the grant revoked and its tokens deleted when the update answers', async () => {
  const i = input();
  const revoking = latch();
  held.set(i.grantId, revoking);
  const handle = await startFamily(i);
  expect(await handle.query(familyStateQuery)).toEqual({ grantId: i.grantId, state: 'active', expiresAt: i.expiresAt });
  expect(await flowState(handle)).toBe('active');
  const first = handle.executeUpdate(revokeFamilyUpdate, { args: [{ reason: 'refresh token revoked' }] });
  await revoking.reached;
  // A second revocation while the first is being written does nothing more.
  expect(await handle.executeUpdate(revokeFamilyUpdate, { args: [{ reason: 'again' }] })).toEqual({ revoked: false });
  revoking.open();
  expect(await first).toEqual({ revoked: true });
  expect(await handle.result()).toBe('revoked');
  expect(w.callsOf(handle.workflowId).map((c) => [c.name, c.arg])).toEqual([
    ['endFamily', { grantId: i.grantId, outcome: 'revoked', reason: 'refresh token revoked', hashes: ['h0'] }],
  ]);
  expect(await flowState(handle)).toBe('revoked');
  await recordHistory(handle, 'refresh-family-revoked-by-update');
});

it('the revokeGrant signal revokes, and the workflow waits for the revocation write', async () => {
  const i = input();
  const revoking = latch();
  held.set(i.grantId, revoking);
  const handle = await startFamily(i);
  await handle.signal(revokeFamilySignal, { reason: 'user deleted' });
  await revoking.reached;
  expect((await handle.describe()).status.name).toBe('RUNNING');
  revoking.open();
  expect(await handle.result()).toBe('revoked');
  expect(w.callsOf(handle.workflowId).map((c) => c.arg)).toEqual([{ grantId: i.grantId, outcome: 'revoked', reason: 'user deleted', hashes: ['h0'] }]);
  await recordHistory(handle, 'refresh-family-revoked-by-signal');
});

it('expires at its absolute expiry', async () => {
  const i = input(1_500);
  const handle = await startFamily(i);
  expect(await handle.result()).toBe('expired');
  expect(w.callsOf(handle.workflowId).map((c) => [c.name, c.arg])).toEqual([['endFamily', { grantId: i.grantId, outcome: 'expired', hashes: ['h0'] }]]);
  expect(await flowState(handle)).toBe('expired');
  await recordHistory(handle, 'refresh-family-expired');
});
