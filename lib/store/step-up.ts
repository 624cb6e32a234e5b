// Step-up 2FA challenges: the MongoDB projection of the
// StepUpChallenge workflow, which the api reads on hot paths (_id lookups only).
// One writer per document, because FerretDB v1 rewrites a whole document on
// every update:
// - step_up_challenges: by challenge id. Inserted by the api at creation, then
//   written only by the workflow's activities (status, user, method).
// - step_up_codes: by the SHA-256 of the 2FA code. Inserted and updated only
//   by the workflow's activities; holds the verify result.
// - step_up_audit: one document per outcome (append only, not expiring).
// The 2FA code itself is never stored: only its hash.
import type { StepUpAuditDoc, StepUpChallengeDoc, StepUpCodeDoc, StepUpMethod, StepUpState } from '../model/step-up-challenge.js';
import type { Store } from './db.js';
import { currentDate } from '../runtime/clock.js';

/** The documents of these collections, defined with the flow's other types. */

export const stepUpChallenges = (store: Store) => store.stepUpChallenges;
export const stepUpCodes = (store: Store) => store.stepUpCodes;
export const stepUpAudit = (store: Store) => store.stepUpAudit;

export async function insertStepUpChallenge(store: Store, doc: StepUpChallengeDoc): Promise<void> {
  await stepUpChallenges(store).insertOne(doc);
}

export async function deleteStepUpChallenge(store: Store, id: string): Promise<void> {
  await stepUpChallenges(store).deleteOne({ _id: id });
}

/** The challenge, while it exists and has not expired; else null. */
export async function findStepUpChallenge(store: Store, id: string): Promise<StepUpChallengeDoc | null> {
  const doc = await stepUpChallenges(store).findOne({ _id: id });
  return doc && doc.expiresAt > currentDate() ? doc : null;
}

export function findStepUpCode(store: Store, codeHash: string): Promise<StepUpCodeDoc | null> {
  return stepUpCodes(store).findOne({ _id: codeHash });
}

/** Writes a state of the workflow into the challenge projection; idempotent. */
export async function recordStepUpState(
  store: Store,
  challengeId: string,
  status: StepUpState,
  userId: string | null,
  method: StepUpMethod | null,
  expiresAt?: Date,
): Promise<StepUpChallengeDoc | null> {
  const set: Partial<StepUpChallengeDoc> = { status };
  if (userId) set.userId = userId;
  if (method) set.method = method;
  if (expiresAt) set.expiresAt = expiresAt;
  return stepUpChallenges(store).findOneAndUpdate({ _id: challengeId }, { $set: set }, { returnDocument: 'after' });
}

/** The code's projection (the verify result), written when the code is issued; idempotent. */
export async function recordStepUpCode(
  store: Store,
  a: { challengeId: string; codeHash: string; userId: string; method: StepUpMethod; verifiedAt: number; expiresAt: number },
): Promise<void> {
  // The challenge document now lives as long as its code (the page reads its status).
  const challenge = await recordStepUpState(store, a.challengeId, 'issued', a.userId, a.method, new Date(a.expiresAt));
  if (!challenge) throw new Error('step-up challenge projection missing');
  const doc: StepUpCodeDoc = {
    _id: a.codeHash,
    challengeId: a.challengeId,
    clientId: challenge.clientId,
    redirectUri: challenge.redirectUri,
    codeChallenge: challenge.codeChallenge,
    userId: a.userId,
    method: a.method,
    verifiedAt: new Date(a.verifiedAt),
    action: challenge.action,
    nonce: challenge.nonce,
    status: 'issued',
    expiresAt: new Date(a.expiresAt),
  };
  await stepUpCodes(store).replaceOne({ _id: a.codeHash }, doc, { upsert: true });
}

export async function recordStepUpCodeStatus(store: Store, codeHash: string, status: StepUpCodeDoc['status']): Promise<void> {
  await stepUpCodes(store).updateOne({ _id: codeHash }, { $set: { status } });
}

/** Records an outcome of a challenge (client, user, action, method, result, time); idempotent. Returns what it wrote. */
export async function recordStepUpAudit(
  store: Store,
  a: { challengeId: string; userId: string | null; method: StepUpMethod | null; result: StepUpState; at: number },
): Promise<StepUpAuditDoc> {
  const challenge = await stepUpChallenges(store).findOne({ _id: a.challengeId });
  const doc: StepUpAuditDoc = {
    _id: `${a.challengeId}:${a.result}`,
    challengeId: a.challengeId,
    clientId: challenge?.clientId ?? '',
    userId: a.userId,
    action: challenge?.action ?? '',
    method: a.method,
    result: a.result,
    at: new Date(a.at),
  };
  await stepUpAudit(store).replaceOne({ _id: doc._id }, doc, { upsert: true });
  return doc;
}
