// Collections whose documents expire. FerretDB v1 has no TTL indexes, so each
// such document carries `expiresAt` (Date), every read checks it, and the
// housekeeping workflow deletes expired documents (lib/store/expiring.ts).
// Pure module: imported by the housekeeping workflow as well as the store.
//
// The purge reads a document, then deletes it by `_id` alone (the one filter
// FerretDB v1 does not scan for). A document written again under the same
// `_id` with a later expiry in that gap would be deleted live, so the purge
// puts back what turns out live when deleted. Only three collections ever do
// that (marked "written again" below); every other document keeps its
// `_id`'s expiry for life (a fresh random `_id`, or one whose expiry is fixed
// by its `_id`, as a rate-limit window's).
export const EXPIRING_COLLECTIONS = [
  'sessions',
  // A session's lists (its clients, its sudo windows), expiring with their session, and each user's
  // sessions, by day, expiring after that day's last session.
  'session_lists',
  'authorization_requests',
  'par_requests',
  // Written again: claimOnce re-claims a key whose guard has expired (delete, insert). Every guard
  // outlives what it guards, and a put-back guard only ever refuses.
  'replay_guards',
  'rate_limits',
  'device_codes',
  'device_user_codes',
  'device_polls',
  // A refresh token's expiresAt is its family's absolute expiry: past it, the family is over. The
  // family deletes the tokens it knows when it ends; the daily pass purges the rest.
  'refresh_tokens',
  // Step-up 2FA: a challenge's projection (expiresAt: the challenge's, then its code's) and its code's.
  // Written again: the code's expiry is set by an activity that may run just after the challenge's.
  'step_up_challenges',
  'step_up_codes',
  // Sudo windows of step-up 2FA (projection of SudoWindow workflows; expiresAt: the window's end).
  // Written again: a window opened again replaces the earlier opening's document.
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
