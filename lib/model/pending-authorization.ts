// Validated authorization requests waiting for the user (sign-in, consent).
// The browser carries only the request id; the parameters stay stored.
import type { ValidAuthorization } from './authorization-request.js';

export type AuthorizationParams = ValidAuthorization;

export interface AuthorizationRequestDoc extends AuthorizationParams {
  _id: string;
  /** The browser the request was started in (hash of its binding cookie): only that browser can continue it. */
  browser: string;
  /** Set when the user allowed this very request (prompt=consent asks even when consent exists)... */
  consentedAt: Date | null;
  /** ...by this user: another user signing in afterwards must consent for themselves. */
  consentedBy: string | null;
  /** The team the user picked at consent for the request's single-team scopes. */
  teamId?: string | null;
  /** A passkey verified at this consent for the site-scope gate (by whom, when). */
  siteFactor?: { userId: string; at: Date } | null;
  /** How the site-scope gate was passed at this consent (the second factor used): audited with the grant. */
  siteGateMethod?: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/** Time a user has to sign in and consent. */
export const AUTHORIZATION_REQUEST_TTL_MS = 15 * 60_000;

/** A request being answered; `_id` and `browser` are set once it had to be stored (the user was sent to a page). */
export type PendingAuthorization = AuthorizationParams & {
  _id?: string;
  browser?: string;
  createdAt: Date;
  consentedAt: Date | null;
  consentedBy: string | null;
  teamId?: string | null;
  siteFactor?: { userId: string; at: Date } | null;
  siteGateMethod?: string | null;
};
