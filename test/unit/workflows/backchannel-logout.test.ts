// BackchannelLogout: one deliverLogoutToken per client of the session, in
// parallel, one attempt each; a failed attempt is that client's failure, and
// the others' outcomes stand.
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { LogoutDelivery } from '../../../lib/model/backchannel-logout.js';
import { backchannelLogout } from '../../../workflows/backchannel-logout.js';
import { flowState, startWorkflowWorker, type WorkflowWorker, recordHistory } from '../../support/workflow-env.js';

let w: WorkflowWorker;

// The client id says what its receiver does.
const delivered = (clientId: string): LogoutDelivery => ({ clientId, sent: true, ok: true, status: 200, error: null, durationMs: 5 });
const noUri = (clientId: string): LogoutDelivery => ({ clientId, sent: false, ok: true, status: null, error: null, durationMs: null });
const refused = (clientId: string): LogoutDelivery => ({ clientId, sent: true, ok: false, status: 400, error: null, durationMs: 5 });

beforeAll(async () => {
  w = await startWorkflowWorker('logout', {
    async deliverLogoutToken({ clientId }: { clientId: string }) {
      if (clientId.startsWith('ok')) return delivered(clientId);
      if (clientId.startsWith('none')) return noUri(clientId);
      if (clientId.startsWith('refuses')) return refused(clientId);
      throw ApplicationFailure.create({ message: 'signer down' });
    },
  });
});
afterAll(() => w?.stop());

async function logout(clientIds: string[]) {
  const i = { issuer: 'https://id.example', sid: randomUUID(), userId: 'u1', clientIds };
  const handle = await w.start(backchannelLogout, i, `logout:${i.sid}`);
  const outcomes = await handle.result();
  return { i, handle, outcomes, calls: w.callsOf(handle.workflowId) };
}

it('sends to every client once, with the session and user, and returns each outcome in client order', async () => {
  const { i, handle, outcomes, calls } = await logout(['ok-1', 'none-2', 'ok-3']);
  expect(outcomes).toEqual([delivered('ok-1'), noUri('none-2'), delivered('ok-3')]);
  expect(calls.map((c) => [c.arg, c.attempt]).sort()).toEqual(
    ['ok-1', 'none-2', 'ok-3'].map((clientId) => [{ issuer: i.issuer, sid: i.sid, userId: 'u1', clientId }, 1]).sort(),
  );
  expect(await flowState(handle)).toBe('delivered');
  await recordHistory(handle, 'backchannel-logout-delivered-to-each-client');
});

it('a refusal or a failed attempt is that client failure only, not retried, and the flow is failed', async () => {
  const { handle, outcomes, calls } = await logout(['ok-1', 'refuses-2', 'broken-3']);
  expect(outcomes).toEqual([
    delivered('ok-1'),
    refused('refuses-2'),
    { clientId: 'broken-3', sent: true, ok: false, status: null, error: expect.any(String), durationMs: null },
  ]);
  expect(calls.filter((c) => (c.arg as { clientId: string }).clientId === 'broken-3').map((c) => c.attempt)).toEqual([1]);
  expect(await flowState(handle)).toBe('failed');
  await recordHistory(handle, 'backchannel-logout-one-refused-one-attempt-failed');
});

it('a session without clients is delivered at once', async () => {
  const { outcomes, calls, handle } = await logout([]);
  expect(outcomes).toEqual([]);
  expect(calls).toEqual([]);
  expect(await flowState(handle)).toBe('delivered');
  await recordHistory(handle, 'backchannel-logout-no-clients');
});
