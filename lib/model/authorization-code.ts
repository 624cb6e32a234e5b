// Authorization codes: the record a code carries sealed inside it (nothing is
// stored but its single-use claim), single use, short-lived, bound to client,
// redirect URI and PKCE challenge.
import type { GrantedClaims } from './claims-request.js';
import type { Acr } from './sessions.js';

export interface AuthorizationCodeDoc {
  _id: string; // hash of the code: its single-use claim's key
  clientId: string;
  userId: string;
  redirectUri: string;
  scope: string[];
  nonce: string | null;
  codeChallenge: string | null;
  authTime: Date;
  amr: string[];
  acr: Acr;
  sid: string;
  /** The grant the tokens of this code belong to (revoked if the code is used twice). */
  grantId: string;
  /** RFC 8707 resource indicators granted with the code. */
  resources: string[];
  /** Individual claims asked for with the `claims` parameter and allowed. */
  claims?: GrantedClaims;
  /** RFC 9449 §10: the DPoP key (thumbprint) the token request must prove; absent or null: any or none. */
  dpopJkt?: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/** 60 seconds: a code is exchanged right after the redirect (RFC 6749 §4.1.2 recommends at most 10 minutes). */
export const AUTHORIZATION_CODE_TTL_MS = 60_000;

/** A used code is remembered this much longer than it lives, so that a late second use is still recognised as reuse. */
export const CODE_REUSE_MEMORY_MS = 10 * 60_000;
