// The device flow's documents (RFC 8628). Three collections, each with one
// kind of writer, because FerretDB v1 rewrites a whole document on every update
// (read, modify, write back): two writers of one document can undo each other.
// - device_codes: the projection of the DeviceAuthorization workflow, by the
//   device code's hash. Inserted by the api, then written only by the
//   workflow's activities (state, approval).
// - device_user_codes: `user:<normalized user code>` → the device code's hash,
//   for the /device page. A duplicate user code fails the insert (unique _id).
// - device_polls: pacing of the token endpoint's polls, while the code is
//   pending. A pending poll is one command on it (recordPendingPoll: found by
//   an `_id` naming the client, the pacing read and written at once);
//   approximate under races, which is all slow_down needs. The workflow's
//   activity deletes it once the code is answered or expired (after writing
//   that state into device_codes), so a poll that finds none reads the state
//   from device_codes.
// All three carry expiresAt (the device code's) and are purged by housekeeping.
import { newUserCode } from '../model/user-code.js';
import type { DeviceApproval, DeviceCodeDoc, DevicePollDoc, DeviceState } from '../model/device-authorization.js';
import { isDuplicateKeyError, type Store } from './db.js';
import { currentDate } from '../runtime/clock.js';

/** The documents of these collections, defined with the flow's other types. */

/** RFC 8628 §3.5: the interval grows by 5 seconds after every slow_down. */
export const SLOW_DOWN_STEP_SECONDS = 5;

export const deviceCodes = (store: Store) => store.deviceCodes;
const userCodes = (store: Store) => store.deviceUserCodes;
const polls = (store: Store) => store.devicePolls;

const userCodeId = (key: string) => `user:${key}`;
/**
 * A pacing document's `_id`: the device code's hash and its client, so that a
 * poll finds it by `_id` alone (the one filter FerretDB v1 answers from an
 * index; `{_id, clientId}` scans the collection) and another client's poll
 * finds nothing. Codes issued before pacing by budget used the hash alone.
 */
const pacingId = (deviceCodeHash: string, clientId: string) => `${deviceCodeHash}:${clientId}`;

/** Stores a new device authorization; returns its normalized user code (a fresh one on the rare collision). */
export async function createDeviceAuthorization(
  store: Store,
  fields: { deviceCodeHash: string; clientId: string; scope: string[]; codeChallenge: string | null; resources?: string[]; interval: number; expiresAt: Date },
): Promise<string> {
  const { deviceCodeHash, expiresAt } = fields;
  let userCodeKey: string | null = null;
  for (let attempt = 0; attempt < 5 && !userCodeKey; attempt++) {
    const candidate = newUserCode();
    try {
      await userCodes(store).insertOne({ _id: userCodeId(candidate), deviceCodeHash, expiresAt });
      userCodeKey = candidate;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
  }
  if (!userCodeKey) throw new Error('no free user code after 5 attempts');
  await polls(store).insertOne({
    _id: pacingId(deviceCodeHash, fields.clientId),
    clientId: fields.clientId,
    interval: fields.interval,
    lastPollAt: null,
    pollsFrom: currentDate(),
    polls: 0,
    expiresAt,
  });
  await deviceCodes(store).insertOne({
    _id: deviceCodeHash,
    clientId: fields.clientId,
    scope: fields.scope,
    codeChallenge: fields.codeChallenge,
    resources: fields.resources ?? [],
    userCodeKey,
    status: 'pending',
    createdAt: currentDate(),
    expiresAt,
  });
  return userCodeKey;
}

/** Undoes createDeviceAuthorization when the workflow could not be started. */
export async function deleteDeviceAuthorization(store: Store, deviceCodeHash: string, userCodeKey: string, clientId: string): Promise<void> {
  await Promise.allSettled([
    deviceCodes(store).deleteOne({ _id: deviceCodeHash }),
    polls(store).deleteOne({ _id: pacingId(deviceCodeHash, clientId) }),
    userCodes(store).deleteOne({ _id: userCodeId(userCodeKey) }),
  ]);
}

export function findDeviceCode(store: Store, deviceCodeHash: string): Promise<DeviceCodeDoc | null> {
  return deviceCodes(store).findOne({ _id: deviceCodeHash });
}

/** The device authorization a person's user code names, while it waits for an answer; else null. */
export async function findPendingByUserCode(store: Store, userCodeKey: string): Promise<DeviceCodeDoc | null> {
  const now = currentDate();
  const link = await userCodes(store).findOne({ _id: userCodeId(userCodeKey) });
  if (!link || link.expiresAt <= now) return null;
  const doc = await findDeviceCode(store, link.deviceCodeHash);
  return doc && doc.status === 'pending' && doc.expiresAt > now ? doc : null;
}

/**
 * A poll of `clientId`'s device code while it waits for the user, in one
 * command: the pacing document as it was before this poll (isEarlyPoll says
 * whether to answer slow_down). Null when there is none for this client: the
 * code was answered or expired, is another client's or unknown, or was issued
 * before pacing by budget (device_codes says which).
 */
export function recordPendingPoll(store: Store, deviceCodeHash: string, clientId: string, now = currentDate()): Promise<DevicePollDoc | null> {
  return polls(store).findOneAndUpdate(
    { _id: pacingId(deviceCodeHash, clientId) },
    { $set: { lastPollAt: now }, $inc: { polls: 1 } },
    { returnDocument: 'before' },
  );
}

/**
 * Records a poll of a pending device code issued before pacing by budget; true
 * when it came sooner than the interval (slow_down), which then grows. Two
 * _id-only operations.
 */
export async function recordPoll(store: Store, deviceCodeHash: string, now = currentDate()): Promise<boolean> {
  const before = await polls(store).findOneAndUpdate({ _id: deviceCodeHash }, { $set: { lastPollAt: now } }, { returnDocument: 'before' });
  if (!before?.lastPollAt || now.getTime() - before.lastPollAt.getTime() >= before.interval * 1000) return false;
  await polls(store).updateOne({ _id: deviceCodeHash }, { $set: { interval: before.interval + SLOW_DOWN_STEP_SECONDS } });
  return true;
}

/** Writes a state of the workflow into the projection; idempotent (activities may be retried). */
export async function recordDeviceState(store: Store, deviceCodeHash: string, state: DeviceState, approval: DeviceApproval | null): Promise<void> {
  const set: Partial<DeviceCodeDoc> = { status: state };
  if (approval) Object.assign(set, { userId: approval.userId, authTime: new Date(approval.authTime), amr: approval.amr, acr: approval.acr, sid: approval.sid });
  const doc = await deviceCodes(store).findOneAndUpdate({ _id: deviceCodeHash }, { $set: set }, { returnDocument: 'after' });
  if (state === 'pending') return;
  // No longer pending (the state is in device_codes now): polls read it there.
  await Promise.all([
    polls(store).deleteOne({ _id: deviceCodeHash }),
    ...(doc ? [polls(store).deleteOne({ _id: pacingId(deviceCodeHash, doc.clientId) })] : []),
  ]);
  // Once answered for good, the user code leads nowhere: its lookup goes.
  if (doc && state !== 'approved') await userCodes(store).deleteOne({ _id: userCodeId(doc.userCodeKey) });
}
