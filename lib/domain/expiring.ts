// Collections whose documents expire. FerretDB v1 has no TTL indexes, so each
// such document carries `expiresAt` (Date), every read checks it, and the
// housekeeping workflow deletes expired documents in bounded batches.
// Pure module: imported by the housekeeping workflow as well as the store.
export const EXPIRING_COLLECTIONS = [
  'sessions',
  // Clients that got tokens for a session (back-channel logout targets); expire with their session.
  'session_clients',
  'authorization_requests',
  'authorization_codes',
  'par_requests',
  'replay_guards',
  'rate_limits',
  'device_codes',
  'device_user_codes',
  'device_polls',
  // A refresh token's expiresAt is its family's absolute expiry: past it, the family is over.
  'refresh_tokens',
  // Step-up 2FA: a challenge's projection (expiresAt: the challenge's, then its code's) and its code's.
  'step_up_challenges',
  'step_up_codes',
  // Sudo windows of step-up 2FA (projection of SudoWindow workflows; expiresAt: the window's end).
  'sudo_windows',
  // Records of back-channel logout deliveries, kept 30 days.
  'logout_deliveries',
  // "Sign in with …" in progress: state, nonce and PKCE verifier until the upstream calls back.
  'upstream_logins',
] as const;
export type ExpiringCollection = (typeof EXPIRING_COLLECTIONS)[number];

/** The least every document of an expiring collection carries (a replay guard is exactly this). */
export interface ExpiringDoc {
  _id: string;
  expiresAt: Date;
}
