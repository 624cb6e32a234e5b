// RefreshFamily (workflow id `grant:<grant id>`): one per grant that has
// refresh tokens. Rotation is an update, so rotations of one family are
// serial: the presented token is current (rotate), superseded (reuse: the
// whole grant is revoked), or unknown. Only SHA-256 hashes of tokens ever
// enter the workflow. The family ends at its absolute expiry or on revocation.
//
// The rotate update changes workflow state only (no activity): the api writes
// the MongoDB projection of the new token itself before answering the client.
// That keeps a rotation to one workflow task, which is what the refresh
// benchmark is bound by on the embedded Temporal.
import { allHandlersFinished, condition, defineQuery, defineSignal, defineUpdate, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { RefreshFamilyActivities } from '../activities/refresh-family.js';
import { SearchAttributes } from '../temporal/search-attributes.js';

export interface RefreshFamilyInput {
  grantId: string;
  clientId: string;
  userId: string;
  scope: string[];
  /** RFC 8707 resources granted with the family (input only; absent in families started before). */
  resources?: string[];
  currentHash: string;
  /** Absolute expiry, epoch milliseconds. */
  expiresAt: number;
}

/** The family's workflow id: one per grant. */
export const familyWorkflowId = (grantId: string) => `grant:${grantId}`;

export type RotateResult = { status: 'rotated' } | { status: 'reused' } | { status: 'invalid'; reason: 'unknown' | 'revoked' | 'expired' };

export interface FamilyState {
  grantId: string;
  state: 'active' | 'revoked' | 'expired';
  rotations: number;
  expiresAt: number;
}

export const rotateUpdate = defineUpdate<RotateResult, [{ presentedHash: string; newHash: string }]>('rotate');
export const revokeUpdate = defineUpdate<{ revoked: boolean }, [{ presentedHash?: string; reason: string }]>('revoke');
export const revokeSignal = defineSignal<[{ reason: string }]>('revokeGrant');
export const familyStateQuery = defineQuery<FamilyState>('state');

const { revokeFamily, expireFamily } = proxyActivities<RefreshFamilyActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { maximumAttempts: 10 },
});

export async function refreshFamily(input: RefreshFamilyInput): Promise<FamilyState['state']> {
  let current = input.currentHash;
  const superseded = new Set<string>();
  let state: FamilyState['state'] = 'active';
  let rotations = 0;

  const setState = (s: FamilyState['state']) => {
    state = s;
    upsertSearchAttributes([{ key: SearchAttributes.state, value: s }]);
  };
  upsertSearchAttributes([
    { key: SearchAttributes.clientId, value: input.clientId },
    { key: SearchAttributes.userId, value: input.userId },
    { key: SearchAttributes.state, value: 'active' },
  ]);

  const revoke = async (reason: string) => {
    if (state !== 'active') return false;
    setState('revoked');
    await revokeFamily({ grantId: input.grantId, reason });
    return true;
  };

  setHandler(familyStateQuery, () => ({ grantId: input.grantId, state, rotations, expiresAt: input.expiresAt }));

  setHandler(rotateUpdate, async ({ presentedHash, newHash }) => {
    if (state !== 'active') return { status: 'invalid', reason: state };
    if (Date.now() >= input.expiresAt) return { status: 'invalid', reason: 'expired' };
    if (presentedHash === current) {
      superseded.add(current);
      current = newHash;
      rotations++;
      return { status: 'rotated' };
    }
    if (superseded.has(presentedHash)) {
      // A superseded token came back: someone holds a copy. The whole grant goes.
      await revoke('refresh token reused');
      return { status: 'reused' };
    }
    return { status: 'invalid', reason: 'unknown' };
  });

  setHandler(revokeUpdate, async ({ reason }) => ({ revoked: await revoke(reason) }));
  // Async, so that allHandlersFinished waits for the revocation's activity before the workflow ends.
  setHandler(revokeSignal, async ({ reason }) => {
    await revoke(reason);
  });

  // Wait for revocation or the absolute expiry, whichever comes first.
  const remaining = Math.max(0, input.expiresAt - Date.now());
  const revoked = await condition(() => state !== 'active', remaining);
  if (!revoked) {
    setState('expired');
    await expireFamily({ grantId: input.grantId });
  }
  // Let in-flight updates finish before the workflow completes.
  await condition(allHandlersFinished);
  return state;
}
