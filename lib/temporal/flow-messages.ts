// Every flow's signals, updates and queries, each defined once: the workflow
// sets its handlers with these, and its client (lib/flows) sends them, so the
// two cannot disagree on a name or a type. A message's name is part of running
// workflows and recorded histories: it is never changed. Pure (definitions
// only): imported by workflow code too.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AuditSealerSettings, ChainHead } from '../model/audit-sealer.js';
import type { DomainVerificationState } from '../model/custom-domains.js';
import type { DeviceApproval, DeviceFlowState, RedeemInput, RedeemResult } from '../model/device-authorization.js';
import type { FamilyState, Revocation } from '../model/refresh-family.js';
import type {
  StepUpAnswer,
  StepUpConfirmation,
  StepUpDenial,
  StepUpFailure,
  StepUpFlowState,
  StepUpRedeemResult,
  StepUpRedemption,
  StepUpTransition,
} from '../model/step-up-challenge.js';
import type { SudoRevocation, SudoRevokeResult } from '../model/sudo-window.js';

// RefreshFamily (workflows/refresh-family.ts).
/** Revokes the family: answers once the grant is revoked and its tokens deleted. */
export const revokeFamilyUpdate = defineUpdate<{ revoked: boolean }, [Revocation]>('revoke');
/** Revokes the family without waiting for the worker (a revocation never hangs on it). */
export const revokeFamilySignal = defineSignal<[Revocation]>('revokeGrant');
/** The family's state, for an SRE and the CLI. */
export const familyStateQuery = defineQuery<FamilyState>('state');

// DeviceAuthorization (workflows/device-authorization.ts).
/** The person allowed the device (a late answer changes nothing). */
export const approveDeviceSignal = defineSignal<[DeviceApproval]>('approve');
/** The person denied the device. */
export const denyDeviceSignal = defineSignal('deny');
/** Hands the approval out, once (with a refresh family's input, starts the family too). */
export const redeemDeviceUpdate = defineUpdate<RedeemResult, [RedeemInput]>('redeem');
export const deviceStateQuery = defineQuery<DeviceFlowState>('state');

// StepUpChallenge (workflows/step-up-challenge.ts).
/** A valid factor: the challenge is consumed and the code (its hash) issued once projected. */
export const confirmStepUpUpdate = defineUpdate<StepUpTransition, [StepUpConfirmation]>('confirm');
/** The user denied, has no factor, or an error occurred. */
export const denyStepUpUpdate = defineUpdate<StepUpAnswer, [StepUpDenial]>('deny');
/** A failed factor attempt. */
export const failStepUpUpdate = defineUpdate<StepUpAnswer, [StepUpFailure]>('fail');
/** The issued code is redeemed once. */
export const redeemStepUpUpdate = defineUpdate<StepUpRedeemResult, [StepUpRedemption]>('redeem');
export const stepUpStateQuery = defineQuery<StepUpFlowState>('state');

// SudoWindow (workflows/sudo-window.ts).
/** Ends the window; answers once the projection says so. */
export const revokeSudoUpdate = defineUpdate<SudoRevokeResult, [SudoRevocation]>('revoke');
/** Ends the window without waiting (sign-out). */
export const revokeSudoSignal = defineSignal<[SudoRevocation]>('revokeWindow');
/** Is the window still open? */
export const sudoActiveQuery = defineQuery<boolean>('active');

// DomainVerification (workflows/domain-verification.ts).
/** Check the TXT record at once. */
export const verifyDomainNowSignal = defineSignal('verifyNow');
/** The domain was deleted: end without verifying. */
export const cancelDomainSignal = defineSignal('cancel');
export const domainStateQuery = defineQuery<DomainVerificationState>('state');

// AuditSealer (workflows/audit-sealer.ts).
/** The newest batch the sealer sealed: the chain's head as Temporal knows it. */
export const auditHeadQuery = defineQuery<ChainHead | null>('head');
/** The settings a worker started with (AUDIT_SEAL_INTERVAL_SECONDS, AUDIT_RETENTION_DAYS): the running sealer takes them. */
export const auditSettingsSignal = defineSignal<[AuditSealerSettings]>('settings');
