// A "Sign in with …" in progress: what its callback must check, kept
// server-side under the state sent upstream (lib/store/upstream-logins.ts).

/** What openid-client checks the upstream's answer against. */
export interface UpstreamChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface UpstreamLoginDoc {
  /** The state sent upstream. */
  _id: string;
  sourceId: string;
  checks: UpstreamChecks;
  /** The browser binding (hash of kf_browser) that started it. */
  browser: string;
  /** The authorization request or page to continue after sign-in. */
  resume: string | null;
  /** Set when a signed-in user started a link from the account page. */
  linkUserId: string | null;
  expiresAt: Date;
}
