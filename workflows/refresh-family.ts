// RefreshFamily (workflow id `grant:<grant id>`): one per grant that has
// refresh tokens. It holds what a workflow is for: the family's absolute
// expiry (a timer), its revocation (an update or a signal) and the cascade
// that follows (the grant revoked, the family's tokens deleted), search
// attributes and a state query an SRE reads. Only SHA-256 hashes of tokens
// ever enter the workflow.
//
// Rotation is not here any more: the api decides it in MongoDB with a unique
// insert per presented token (lib/store/refresh-rotations.ts: single use,
// retries within REFRESH_RETRY_WINDOW_SECONDS, reuse), with no Temporal call on
// the client's path; the family does not need to hear of rotations. A `rotate`
// update still comes from an api of an earlier version during a rolling
// upgrade: the family answers it from the same claims (the rotateInStore
// activity), so old and new apis never both rotate one token.
//
// Before that change (histories without the ROTATIONS_IN_STORE marker),
// rotation was this update: serial, the presented token current (rotate),
// superseded (reuse: the whole grant is revoked), retried within the window
// the api named, or unknown; every `rotationsPerRun` rotations
// (REFRESH_FAMILY_ROTATIONS_PER_RUN) the family continued as new, carrying the
// current hash, the count, the newest rotation and the newest superseded
// hashes (at most MAX_CARRIED_SUPERSEDED). Those histories replay with this
// code as they ran, and families started then keep working: their tokens'
// documents are where the api now rotates them.
//
// When the family ends (revoked or expired), its last activity deletes the
// tokens it knows by hash and every successor their rotation claims lead to,
// each a lookup by `_id` (a write by grant would scan every family's tokens on
// FerretDB v1). What a crash leaves is refused all the same: the grant is
// revoked first, and past the family's expiry every token is; the daily
// housekeeping pass deletes those.
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { RefreshFamilyActivities } from '../activities/refresh-family.js';
import {
  RefreshFamilyMessages,
  type FamilyState,
  type LastRotation,
  type RefreshFamilyInput,
  type Revocation,
  type RotateResult,
  type Rotation,
} from '../lib/domain/refresh-family.js';
import { SearchAttributes } from '../lib/temporal/search-attributes.js';

export const rotateUpdate = defineUpdate<RotateResult, [Rotation]>(RefreshFamilyMessages.rotate);
export const revokeUpdate = defineUpdate<{ revoked: boolean }, [Revocation]>(RefreshFamilyMessages.revoke);
export const revokeSignal = defineSignal<[{ reason: string }]>(RefreshFamilyMessages.revokeSignal);
export const familyStateQuery = defineQuery<FamilyState>(RefreshFamilyMessages.state);

/** Versioning: histories from before continue-as-new replay without it. */
const CONTINUE_AS_NEW = 'refresh-family-continue-as-new';
/** Versioning: families that ended before they deleted their own tokens replay with the writes by grant. */
const OWN_TOKENS = 'refresh-family-deletes-own-tokens';
/** Versioning: histories from before the retry window replay a retry of the token just superseded as the reuse it was. */
const RETRY_WINDOW = 'refresh-family-retry-window';
/** Versioning: from this marker on, a `rotate` update (from an api of an earlier version) is decided by the rotation claims in MongoDB. */
const ROTATIONS_IN_STORE = 'refresh-family-rotations-in-store';
/** Most superseded hashes a run hands to the next (each 43 characters): bounds the input. */
export const MAX_CARRIED_SUPERSEDED = 1000;

const { endFamily, revokeFamily, expireFamily, rotateInStore } = proxyActivities<RefreshFamilyActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { maximumAttempts: 10 },
});

export async function refreshFamily(input: RefreshFamilyInput): Promise<FamilyState['state']> {
  const perRun = input.rotationsPerRun;
  // Only runs that recorded the marker may continue as new; an older history replays as it ran.
  const mayContinue = perRun !== undefined && perRun > 0 && patched(CONTINUE_AS_NEW);
  let current = input.currentHash;
  const superseded = new Set<string>(input.superseded ?? []);
  let state: FamilyState['state'] = 'active';
  let rotations = input.rotations ?? 0;
  let rotationsThisRun = 0;
  let lastRotation: LastRotation | undefined = input.lastRotation;

  const setState = (s: FamilyState['state']) => {
    state = s;
    upsertSearchAttributes([{ key: SearchAttributes.state, value: s }]);
  };
  upsertSearchAttributes([
    { key: SearchAttributes.clientId, value: input.clientId },
    { key: SearchAttributes.userId, value: input.userId },
    { key: SearchAttributes.state, value: 'active' },
  ]);

  /** The hashes the family's end deletes: bounded, as the input of an activity. */
  const known = () => [current, ...[...superseded].slice(-MAX_CARRIED_SUPERSEDED)];

  const revoke = async (reason: string) => {
    if (state !== 'active') return false;
    setState('revoked');
    if (patched(OWN_TOKENS)) await endFamily({ grantId: input.grantId, outcome: 'revoked', reason, hashes: known() });
    else await revokeFamily({ grantId: input.grantId, reason });
    return true;
  };

  setHandler(familyStateQuery, () => ({ grantId: input.grantId, state, rotations, expiresAt: input.expiresAt }));

  /** The current token is superseded by `newHash`. */
  const supersedeCurrent = (newHash: string) => {
    superseded.add(current);
    current = newHash;
    rotations++;
    rotationsThisRun++;
  };

  /** The token the newest rotation superseded, again within the window (workflow time): its answer was likely lost. */
  const isRetry = (presentedHash: string, windowMs = 0) =>
    windowMs > 0 && presentedHash === lastRotation?.presentedHash && Date.now() - lastRotation.at < windowMs;

  setHandler(rotateUpdate, async ({ presentedHash, newHash, retryWindowMs }) => {
    if (state !== 'active') return { status: 'invalid', reason: state };
    if (Date.now() >= input.expiresAt) return { status: 'invalid', reason: 'expired' };
    if (patched(ROTATIONS_IN_STORE)) {
      const result = await rotateInStore({ grantId: input.grantId, presentedHash, newHash, retryWindowMs });
      if (result.status === 'reused') await revoke('refresh token reused');
      return result;
    }
    if (presentedHash === current) {
      lastRotation = { presentedHash, at: Date.now() };
      supersedeCurrent(newHash);
      return { status: 'rotated' };
    }
    // Only runs that recorded the marker retry; an older history replays the retry as reuse.
    if (isRetry(presentedHash, retryWindowMs) && patched(RETRY_WINDOW)) {
      // The successor issued moments before is superseded too; the window still
      // runs from the first rotation (lastRotation stays), so retries never extend it.
      const replacedHash = current;
      supersedeCurrent(newHash);
      return { status: 'rotated', replacedHash };
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

  // Wait for revocation, a full run, or the absolute expiry, whichever comes first.
  const remaining = Math.max(0, input.expiresAt - Date.now());
  const runFull = () => mayContinue && rotationsThisRun >= perRun;
  const woken = await condition(() => state !== 'active' || runFull(), remaining);
  if (woken && state === 'active') {
    // Accepted updates finish in this run; updates not yet accepted are retried on the next one.
    await condition(allHandlersFinished);
    if (state === 'active') {
      const carried = [...superseded].slice(-Math.min(perRun!, MAX_CARRIED_SUPERSEDED));
      return continueAsNew<typeof refreshFamily>({ ...input, currentHash: current, superseded: carried, rotations, lastRotation });
    }
  }
  if (!woken) {
    setState('expired');
    if (patched(OWN_TOKENS)) await endFamily({ grantId: input.grantId, outcome: 'expired', hashes: known() });
    else await expireFamily({ grantId: input.grantId });
  }
  // Let in-flight updates finish before the workflow completes.
  await condition(allHandlersFinished);
  return state;
}
