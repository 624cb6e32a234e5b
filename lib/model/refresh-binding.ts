// What constrains a refresh token to its sender, beside the client's own
// authentication: the DPoP key it is bound to, and how long after a rotation
// the token it superseded may still be retried. Pure.
//
// Binding (RFC 9449 §5, and the token endpoint's rule that a DPoP refresh
// repeats the same key's proof):
// - outside FAPI 2.0, a refresh token issued in answer to a request with a
//   DPoP proof is bound to the proof's key, for public and confidential
//   clients alike: a stolen refresh token (with a confidential client's
//   secret) is useless without the key. A family begun without DPoP is bound
//   from the first refresh that brings a proof on.
// - a FAPI 2.0 client (always confidential, private_key_jwt) keeps its refresh
//   token unbound, as RFC 9449 §5 allows: its authentication constrains it,
//   and each refresh binds the access token it issues to that request's proof
//   (the FAPI 2.0 conformance suite refreshes with a new key).
// A token once bound stays bound to its key, whatever the client's profile
// becomes.
import { isFapi2, type FapiProfile } from './fapi2.js';

interface RefreshClient {
  public: boolean;
  fapiProfile?: FapiProfile | null;
}

/**
 * The key a refresh token issued now is bound to: the presented token's key
 * when it has one (the refresh proved it), else the key of the request's
 * proof outside FAPI 2.0; undefined when unbound.
 */
export function refreshTokenJkt(client: RefreshClient, proofJkt: string | undefined, presentedJkt?: string): string | undefined {
  if (presentedJkt !== undefined) return presentedJkt;
  return proofJkt !== undefined && !isFapi2(client) ? proofJkt : undefined;
}

/** The retry windows of the configuration, in milliseconds. */
export interface RetryWindows {
  /** REFRESH_RETRY_WINDOW_SECONDS: confidential clients, and DPoP-bound tokens. */
  defaultMs: number;
  /** REFRESH_RETRY_WINDOW_PUBLIC_SECONDS: a public client's unbound token, which only its possession protects (0 by default). */
  publicUnboundMs: number;
}

/**
 * How long after a rotation the token it superseded may be presented again
 * for a fresh successor (0: never). A public client without DPoP has nothing
 * but the token: a copy captured in transit replays as well as a lost answer
 * retries, so its window is the (by default closed) public one.
 */
export function refreshRetryWindowMs(client: RefreshClient, tokenJkt: string | undefined, windows: RetryWindows): number {
  return client.public && tokenJkt === undefined ? windows.publicUnboundMs : windows.defaultMs;
}
