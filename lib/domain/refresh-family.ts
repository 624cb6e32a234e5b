// What the RefreshFamily workflow, its activities, its client (lib/flows) and
// the token endpoint share: the family's input, its workflow id, the names of
// its handlers and what they answer. Pure: imported by the workflow too.

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
  /** Rotations after which a run continues as new (config); absent in families started before: no limit. */
  rotationsPerRun?: number;
  /** Hashes superseded in earlier runs, newest last (carried by continue-as-new). */
  superseded?: string[];
  /** Rotations of the earlier runs (carried by continue-as-new). */
  rotations?: number;
  /** The newest rotation of the current token, which a retry may repeat (carried by continue-as-new). */
  lastRotation?: LastRotation;
}

/**
 * The newest rotation of the family's current token: the hash presented for
 * it (now superseded) and when, in workflow time (epoch milliseconds). Only
 * that hash may be retried, and only within the window of the retry.
 */
export interface LastRotation {
  presentedHash: string;
  at: number;
}

/** The family's workflow id: one per grant. */
export const familyWorkflowId = (grantId: string) => `grant:${grantId}`;

/** The `rotate` update's argument: hashes only, never a token. */
export interface Rotation {
  presentedHash: string;
  newHash: string;
  /**
   * How long after its rotation the token just superseded may be presented
   * again for a fresh successor (REFRESH_RETRY_WINDOW_SECONDS, from the api's
   * config); absent or 0: never, any superseded token is reuse.
   */
  retryWindowMs?: number;
}

/**
 * `replacedHash`: the rotation was a retry, and the successor issued moments
 * before it (its hash) is superseded now, so that a later use of it is reuse.
 */
export type RotateResult =
  { status: 'rotated'; replacedHash?: string } | { status: 'reused' } | { status: 'invalid'; reason: 'unknown' | 'revoked' | 'expired' };

/** The `revoke` update's argument. */
export interface Revocation {
  presentedHash?: string;
  reason: string;
}

/**
 * A family's end as its last activity writes it: the grant revoked (for a
 * revocation), then the tokens the family knows deleted by hash (its current
 * one and at most MAX_CARRIED_SUPERSEDED superseded ones).
 */
export type FamilyEnd = { grantId: string; hashes: string[] } & ({ outcome: 'revoked'; reason: string } | { outcome: 'expired' });

export interface FamilyState {
  grantId: string;
  state: 'active' | 'revoked' | 'expired';
  /** Rotations the family itself decided: those of its runs from before rotation moved to MongoDB (0 for a family started since). */
  rotations: number;
  expiresAt: number;
}

/** Names of the family's update, signal and query handlers (part of running histories: never renamed). */
export const RefreshFamilyMessages = {
  rotate: 'rotate',
  revoke: 'revoke',
  revokeSignal: 'revokeGrant',
  state: 'state',
} as const;

export type RefreshTokenStatus = 'current' | 'superseded' | 'revoked' | 'expired';

export interface RefreshTokenDoc {
  _id: string; // SHA-256 of the refresh token
  grantId: string;
  clientId: string;
  userId: string;
  scope: string[];
  /** RFC 8707 resources of the grant, added to every refreshed access token's aud (copied on rotation). */
  resources?: string[];
  status: RefreshTokenStatus;
  /** How the user authenticated for the grant, carried into refreshed access tokens. */
  auth: { authTime: Date; amr: string[]; acr: string; sid: string | null };
  issuedAt: Date;
  /** RFC 7638 thumbprint of the DPoP key the family is bound to (RFC 9449 §5): every refresh must prove it. */
  jkt?: string;
  /** The family's absolute expiry: rotation never extends it. */
  expiresAt: Date;
}

/**
 * A rotation as MongoDB records it: the presented token's claim, inserted
 * with `_id` `rotated:<its hash>` into `refresh_tokens` before its successor
 * exists. The unique `_id` makes each token rotate once (the first insert
 * wins); every later presentation finds the claim and is either a retry (the
 * same token, within the window of its rotation) or reuse.
 */
export interface RefreshRotationDoc {
  _id: string;
  grantId: string;
  /** The successor's hash. */
  successor: string;
  /** When the presented token was first rotated: a retry's window runs from there and is never extended. */
  rotatedAt: Date;
  /** Set when this token was superseded by a retry of an older one (that one's hash), not by its own use. */
  retryOf?: string;
  /** The family's absolute expiry (housekeeping's daily pass purges the claim with the tokens). */
  expiresAt: Date;
}

/** The `_id` of a token's rotation claim. */
export const rotationClaimId = (hash: string) => `rotated:${hash}`;

/** A retry chain longer than this is treated as reuse: a client retrying that often holds more than one copy. */
export const MAX_RETRIES_PER_ROTATION = 16;

/** What a refresh token's presentation did: rotated it (a retry names the successor it replaced), or reuse. */
export type StoreRotation = { status: 'rotated'; replacedHash?: string } | { status: 'reused' };
