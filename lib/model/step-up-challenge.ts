// A step-up 2FA challenge as every layer sees it: the StepUpChallenge
// workflow's states, input and answers, the names of its updates and query, its
// workflow id, and the MongoDB projection's documents (challenge, code, audit).
// Pure module (no Node built-ins): the workflow imports it too.
import type { AuditRequest } from './audit-events.js';

export type StepUpState = 'created' | 'issued' | 'denied' | 'failed' | 'error' | 'expired' | 'redeemed' | 'code_expired';
export type StepUpMethod = 'totp' | 'passkey' | 'backup' | 'sudo';

export interface StepUpChallengeInput {
  challengeId: string;
  clientId: string;
  /** Epoch milliseconds: the challenge's end unless confirmed or answered before. */
  expiresAt: number;
  /** Lifetime of the 2FA code after issuance. */
  codeTtlMs: number;
}

export interface StepUpConfirmation {
  userId: string;
  method: StepUpMethod;
  /** SHA-256 of the 2FA code the browser gets (never the code). */
  codeHash: string;
  /** The browser's request that answered: the outcome's audit record names it (IP, user agent, request id). */
  request?: AuditRequest;
}

export interface StepUpDenial {
  userId: string | null;
  reason: 'denied' | 'error';
  request?: AuditRequest;
}

export interface StepUpFailure {
  userId: string;
  request?: AuditRequest;
}

export interface StepUpRedemption {
  codeHash: string;
}

export type StepUpTransition = { ok: true; verifiedAt: number; codeExpiresAt: number } | { ok: false; state: StepUpState };
export type StepUpAnswer = { ok: true } | { ok: false; state: StepUpState };
export type StepUpRedeemResult = { status: 'redeemed' } | { status: 'refused'; state: StepUpState };

export interface StepUpFlowState {
  state: StepUpState;
  clientId: string;
  userId: string | null;
  method: StepUpMethod | null;
}

export const stepUpWorkflowId = (challengeId: string) => `challenge:${challengeId}`;

/** A challenge id is a UUID (random, not a secret). */
export const isChallengeId = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(v);

export interface StepUpChallengeDoc {
  _id: string; // challenge id (random, not a secret)
  clientId: string;
  redirectUri: string;
  /** The client's `state`, echoed in the url and the final redirect; null when absent. */
  state: string | null;
  codeChallenge: string | null;
  action: string;
  nonce: string;
  requireCaptcha: boolean;
  status: StepUpState;
  userId?: string;
  method?: StepUpMethod;
  createdAt: Date;
  /** The challenge's expiry (the code's once one is issued). */
  expiresAt: Date;
}

export interface StepUpCodeDoc {
  _id: string; // SHA-256 of the 2FA code
  challengeId: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string | null;
  userId: string;
  method: StepUpMethod;
  verifiedAt: Date;
  action: string;
  nonce: string;
  status: 'issued' | 'redeemed' | 'expired';
  expiresAt: Date;
}

export interface StepUpAuditDoc {
  _id: string; // `<challenge id>:<result>`: idempotent under activity retries
  challengeId: string;
  clientId: string;
  userId: string | null;
  action: string;
  method: StepUpMethod | null;
  result: StepUpState;
  at: Date;
}
