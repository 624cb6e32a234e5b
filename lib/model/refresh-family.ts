// What the RefreshFamily workflow, its activities, its client (lib/flows) and
// the token endpoint share: the family's input, its workflow id and what its
// messages (lib/temporal/flow-messages.ts) carry and answer. Pure: imported by
// the workflow too.

export interface RefreshFamilyInput {
  grantId: string;
  clientId: string;
  userId: string;
  scope: string[];
  /** RFC 8707 resources granted with the family. */
  resources: string[];
  /** The hash of the family's first refresh token: its end deletes it and every successor along the rotation claims. */
  currentHash: string;
  /** Absolute expiry, epoch milliseconds. */
  expiresAt: number;
}

/** The family's workflow id: one per grant. */
export const familyWorkflowId = (grantId: string) => `grant:${grantId}`;

/** The `revoke` update's and signal's argument. */
export interface Revocation {
  reason: string;
}

/**
 * A family's end as its last activity writes it: the grant revoked (for a
 * revocation), then the tokens the family knows deleted by hash, with every
 * successor their rotation claims lead to.
 */
export type FamilyEnd = { grantId: string; hashes: string[] } & ({ outcome: 'revoked'; reason: string } | { outcome: 'expired' });

export interface FamilyState {
  grantId: string;
  state: 'active' | 'revoked' | 'expired';
  expiresAt: number;
}

export interface RefreshTokenDoc {
  _id: string; // SHA-256 of the refresh token
  grantId: string;
  clientId: string;
  userId: string;
  scope: string[];
  /** RFC 8707 resources of the grant, added to every refreshed access token's aud (copied on rotation). */
  resources: string[];
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
