// The device authorization flow (RFC 8628) as every layer sees it: the
// workflow's states, input and answers, the names of its signals, update and
// query, its workflow id, and the MongoDB projection's documents. Pure module
// (no Node built-ins): the DeviceAuthorization workflow imports it too.
import type { RefreshFamilyInput } from './refresh-family.js';

export type DeviceState = 'pending' | 'approved' | 'denied' | 'expired' | 'redeemed';

/** Who approved, and how they had authenticated (copied into the tokens). */
export interface DeviceApproval {
  userId: string;
  /** Epoch milliseconds (a number: Dates do not survive the JSON payload converter). */
  authTime: number;
  amr: string[];
  acr: string;
  sid: string | null;
}

export interface DeviceAuthorizationInput {
  deviceCodeHash: string;
  clientId: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

export type RedeemResult = { status: 'redeemed'; approval: DeviceApproval; familyStarted?: boolean } | { status: 'refused'; state: DeviceState };

export interface RedeemInput {
  /** The refresh family to start on success (offline_access), or null. */
  family: RefreshFamilyInput | null;
}

export interface DeviceFlowState {
  state: DeviceState;
  clientId: string;
  userId: string | null;
  expiresAt: number;
}

/** The workflow id: derived from the hash, never the code, and short enough to read in the UI. */
export const deviceWorkflowId = (deviceCodeHash: string) => `device:${deviceCodeHash.slice(0, 32)}`;

export interface DeviceCodeDoc {
  _id: string; // SHA-256 of the device_code
  clientId: string;
  scope: string[];
  codeChallenge: string | null;
  /** RFC 8707 resources requested at device authorization (absent on older codes). */
  resources?: string[];
  /** The normalized user code, so the lookup document can be removed when the flow ends. */
  userCodeKey: string;
  status: DeviceState;
  /** Set on approval: who approved and how they had authenticated. */
  userId?: string;
  authTime?: Date;
  amr?: string[];
  acr?: string;
  sid?: string | null;
  createdAt: Date;
  expiresAt: Date;
}

export interface DeviceUserCodeDoc {
  _id: string; // `user:<normalized user code>`
  deviceCodeHash: string;
  expiresAt: Date;
}

export interface DevicePollDoc {
  _id: string; // `<SHA-256 of the device_code>:<client id>` (codes issued before pacing by budget: the hash alone)
  /** The interval the client was given (seconds between polls); polls issued before pacing by budget grew it on each slow_down. */
  interval: number;
  lastPollAt: Date | null;
  expiresAt: Date;
  /** The client the code was issued to: a poll by another finds nothing (absent in codes issued before pacing by budget). */
  clientId?: string;
  /** When the polling budget starts: the code's issue. */
  pollsFrom?: Date;
  /** Polls so far, early ones included: the budget spent is `interval` seconds each, so each slow_down pushes the next allowed poll one interval further. */
  polls?: number;
}

/**
 * Whether a poll at `now` comes too early (RFC 8628 §3.5 slow_down), from the
 * pacing document as it was before this poll: sooner than `interval` after the
 * previous poll, or ahead of the budget (one interval per poll since the code
 * was issued, early polls counted too). A client that adds 5 seconds after
 * each slow_down, as the RFC tells it to, stays within the budget; one that
 * keeps polling early keeps pushing its next allowed poll away.
 */
export function isEarlyPoll(before: Pick<DevicePollDoc, 'interval' | 'lastPollAt' | 'pollsFrom' | 'polls'>, now: Date): boolean {
  if (!before.lastPollAt) return false;
  const intervalMs = before.interval * 1000;
  if (now.getTime() - before.lastPollAt.getTime() < intervalMs) return true;
  return before.pollsFrom !== undefined && now.getTime() < before.pollsFrom.getTime() + (before.polls ?? 0) * intervalMs;
}
