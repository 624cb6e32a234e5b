// SudoWindow: open until its TTL (ended) or a revocation (revoked, by update
// or signal); the end is written once, by the endSudoWindow activity.
import { randomUUID } from 'node:crypto';
import { sudoWindow } from '../../../workflows/sudo-window.js';
import { flowState, latch, startWorkflowWorker, type Latch, type WorkflowWorker, recordHistory } from '../../support/workflow-env.js';

let w: WorkflowWorker;
/** Windows whose end write waits for the test. */
const held = new Map<string, Latch>();

beforeAll(async () => {
  w = await startWorkflowWorker('sudo-window', {
    async endSudoWindow(input: { windowId: string }) {
      await held.get(input.windowId)?.pass();
    },
  });
});
afterAll(() => w?.stop());

function input(ttlMs: number) {
  const windowId = `sudo:u1:abcd:${randomUUID()}`;
  return { windowId, openingId: randomUUID(), userId: 'u1', sid: 'sid-1', clientId: 'c1', expiresAt: Date.now() + ttlMs };
}

it('is active until its TTL, then ends and writes the end once', async () => {
  const i = input(1_500);
  const handle = await w.start(sudoWindow, i, i.windowId);
  expect(await handle.query('active')).toBe(true);
  expect(await handle.result()).toBe('ended');
  expect(w.callsOf(i.windowId).map((c) => [c.name, c.arg])).toEqual([['endSudoWindow', { windowId: i.windowId, openingId: i.openingId, status: 'ended' }]]);
  expect(await flowState(handle)).toBe('ended');
  await recordHistory(handle, 'sudo-window-ended-at-ttl');
});

it('a revoke update ends it at once; a second revocation changes nothing', async () => {
  const i = input(60_000);
  const gate = latch();
  held.set(i.windowId, gate);
  const handle = await w.start(sudoWindow, i, i.windowId);
  const first = handle.executeUpdate('revoke', { args: [{ reason: 'signed out' }] });
  // The first revocation is inside its activity: the window is no longer active.
  await gate.reached;
  expect(await handle.query('active')).toBe(false);
  expect(await handle.executeUpdate('revoke', { args: [{ reason: 'again' }] })).toEqual({ revoked: false });
  gate.open();
  expect(await first).toEqual({ revoked: true });
  expect(await handle.result()).toBe('revoked');
  expect(w.callsOf(i.windowId).map((c) => c.arg)).toEqual([{ windowId: i.windowId, openingId: i.openingId, status: 'revoked' }]);
  expect(await flowState(handle)).toBe('revoked');
  await recordHistory(handle, 'sudo-window-revoked-by-update');
});

it('the revokeWindow signal ends it, and the end is written before the workflow completes', async () => {
  const i = input(60_000);
  const gate = latch();
  held.set(i.windowId, gate);
  const handle = await w.start(sudoWindow, i, i.windowId);
  await handle.signal('revokeWindow', { reason: 'password changed' });
  await gate.reached;
  expect((await handle.describe()).status.name).toBe('RUNNING');
  gate.open();
  expect(await handle.result()).toBe('revoked');
  expect(w.callsOf(i.windowId).map((c) => (c.arg as { status: string }).status)).toEqual(['revoked']);
  await recordHistory(handle, 'sudo-window-revoked-by-signal');
});
