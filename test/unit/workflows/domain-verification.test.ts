// DomainVerification: checks at once, then on a doubling timer; verifyNow
// checks at once; cancel ends it; at the deadline it expires unverified.
import { randomUUID } from 'node:crypto';
import { domainVerification } from '../../../workflows/domain-verification.js';
import { flowState, startWorkflowWorker, type WorkflowWorker, recordHistory } from '../../support/workflow-env.js';

let w: WorkflowWorker;
/** TXT names whose record is "published". */
const published = new Set<string>();
/** Domains the stub finds deleted. */
const deleted = new Set<string>();

beforeAll(async () => {
  w = await startWorkflowWorker('domain-verification', {
    checkDomainTxt: (input: { name: string }) => Promise.resolve(published.has(input.name)),
    recordDomainVerified: (input: { domainId: string }) => Promise.resolve(!deleted.has(input.domainId)),
  });
});
afterAll(() => w?.stop());

function input(firstIntervalMs: number, deadlineMs: number) {
  const domainId = randomUUID();
  return {
    domainId,
    userId: 'u1',
    domain: `${domainId}.example`,
    expected: 'keyflow-verification=t',
    firstIntervalMs,
    maxIntervalMs: firstIntervalMs * 2,
    deadline: Date.now() + deadlineMs,
  };
}
const names = (id: string) => w.callsOf(`domain:${id}`).map((c) => c.name);

it('checks until the record appears, then records the domain verified once', async () => {
  const i = input(300, 30_000);
  const handle = await w.start(domainVerification, i, `domain:${i.domainId}`);
  await w.waitForCalls(`domain:${i.domainId}`, 2);
  published.add(`_keyflow-challenge.${i.domain}`);
  expect(await handle.result()).toBe('verified');
  expect(names(i.domainId).filter((n) => n === 'recordDomainVerified')).toHaveLength(1);
  expect(await flowState(handle)).toBe('verified');
  await recordHistory(handle, 'domain-verification-verified');
});

it('expires at the deadline with the domain unverified, the waits doubling', async () => {
  const i = input(400, 2_500);
  const handle = await w.start(domainVerification, i, `domain:${i.domainId}`);
  expect(await handle.result()).toBe('expired');
  const checks = names(i.domainId);
  expect(checks).not.toContain('recordDomainVerified');
  // At once, +400, +800 (capped), +800, then one at the deadline: fewer than a fixed 400 ms would make.
  expect(checks.length).toBeGreaterThanOrEqual(3);
  expect(checks.length).toBeLessThanOrEqual(6);
  expect(await flowState(handle)).toBe('expired');
  await recordHistory(handle, 'domain-verification-expired');
});

it('verifyNow checks at once; cancel ends the flow without verifying', async () => {
  const i = input(60_000, 600_000);
  const handle = await w.start(domainVerification, i, `domain:${i.domainId}`);
  await w.waitForCalls(`domain:${i.domainId}`, 1);
  await handle.signal('verifyNow');
  await w.waitForCalls(`domain:${i.domainId}`, 2);
  expect(await handle.query('state')).toBe('pending');
  await handle.signal('cancel');
  expect(await handle.result()).toBe('cancelled');
  expect(names(i.domainId)).toEqual(['checkDomainTxt', 'checkDomainTxt']);
  await recordHistory(handle, 'domain-verification-cancelled');
});

it('a domain deleted while its record is found ends cancelled', async () => {
  const i = input(60_000, 600_000);
  deleted.add(i.domainId);
  published.add(`_keyflow-challenge.${i.domain}`);
  const handle = await w.start(domainVerification, i, `domain:${i.domainId}`);
  expect(await handle.result()).toBe('cancelled');
});
