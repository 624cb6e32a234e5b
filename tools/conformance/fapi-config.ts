// The conformance suite's test configuration for the FAPI 2.0 plans: where
// discovery is (the OAuth metadata for plain OAuth variants), the two
// private_key_jwt clients with their private JWKS (the suite signs client
// assertions, DPoP proofs and request objects with them), the protected
// resource the suite calls with each access token, and the browser: Keyflow's
// sign-in and consent pages, and for the modules that accept an error page
// instead of a redirect, that page captured for the reviewer.
import type { JWK } from 'jose';
import { signInSteps, type Task } from './suite-config.js';

export interface FapiClient {
  client_id: string;
  /** The client's private JWK Set (one PS256 key with kid, alg and use). */
  jwks: { keys: JWK[] };
}

export interface FapiConfigInput {
  issuer: string;
  alias: string;
  user: { email: string; password: string };
  scope: string;
  /** The `openid` variant: openid_connect, or plain_oauth (no ID tokens, RFC 8414 metadata). */
  openid: boolean;
  clients: [FapiClient, FapiClient];
  /** The suite's callback (the clients' redirect URI, without the second client's query). */
  callback: string;
  /** The protected resource: GET with the (DPoP-bound) access token must answer 200. */
  resourceUrl: string;
}

/**
 * The modules that accept either Keyflow's error page at the authorization
 * endpoint or an error (or success) at the redirect URI: the browser captures
 * the page when it stays on the authorization endpoint, else signs in as usual.
 */
const ERROR_PAGE_OR_CALLBACK = [
  'ensure-authorization-request-without-state-success',
  'ensure-different-nonce-inside-and-outside-request-object',
  'ensure-different-state-inside-and-outside-request-object',
  'ensure-authorization-request-with-long-nonce',
  'ensure-authorization-request-with-long-state',
  'ensure-request-object-without-exp-fails',
  'ensure-request-object-without-nbf-fails',
  'state-only-outside-request-object-not-used',
  'ensure-request-object-without-redirect-uri-fails',
  'ensure-expired-request-object-fails',
  'ensure-request-object-with-bad-aud-fails',
  'ensure-request-object-with-exp-over-60-fails',
  'ensure-request-object-with-nbf-over-60-fails',
  'ensure-signed-request-object-with-RS256-fails',
  'ensure-request-object-signature-algorithm-is-not-none',
  'ensure-request-object-with-invalid-signature-fails',
  'ensure-matching-key-in-authorization-request',
  'ensure-unsigned-request-at-par-endpoint-fails',
  'ensure-registered-redirect-uri',
  'plain-fapi-ensure-registered-redirect-uri',
  'ensure-unsigned-authorization-request-without-using-par-fails',
  'ensure-redirect-uri-in-authorization-request',
  'ensure-response-type-code-idtoken-fails',
  'ensure-response-type-token-fails',
  'par-attempt-reuse-request_uri',
  'par-attempt-to-use-expired-request_uri',
  'par-attempt-to-use-request_uri-for-different-client',
  'par-ensure-pkce-required',
  'par-plain-pkce-rejected',
];
const MODULE_PREFIX = 'fapi2-security-profile-final-';

export function fapiSuiteConfig(input: FapiConfigInput): Record<string, unknown> {
  const { issuer, user } = input;
  const steps = signInSteps(issuer, user);
  const { authorize, login, consent } = steps;
  // The callback by its own URL: the OIDC plans' `*/test/*/callback*` also matches an authorization
  // URL (its redirect_uri), which the error-page modules below stay on.
  const callback: Task = { ...steps.callback, match: `${input.callback}*` };
  const signIn = { match: authorize, tasks: [login(), consent, callback] };

  // Keyflow's error page (api/html/layout.ts): the message in p.error; no redirect.
  const errorPage: Task = {
    task: 'Error page',
    optional: true,
    match: authorize,
    commands: [['wait', 'css', "p.error[role='alert']", 10, '.', 'update-image-placeholder']],
  };
  const errorPageOrSignIn = { browser: [{ match: authorize, tasks: [errorPage, login(), consent, { ...callback, optional: true }] }] };

  const override: Record<string, unknown> = Object.fromEntries(ERROR_PAGE_OR_CALLBACK.map((m) => [`${MODULE_PREFIX}${m}`, errorPageOrSignIn]));
  // The user says no: "Cancel and return to …" on the sign-in page (the consent page's Deny shows only
  // when the user has not consented to the client already, which an earlier module has).
  const cancel: Task = { task: 'Cancel', match: `${issuer}/login*`, commands: [['click', 'css', "form[action='/login/cancel'] button[type='submit']"]] };
  override[`${MODULE_PREFIX}user-rejects-authentication`] = { browser: [{ match: authorize, tasks: [cancel, callback] }] };
  // The same request_uri twice: the first visit only loads the sign-in page, the second signs in
  // (or shows the error page when the request_uri was spent by the first visit).
  override[`${MODULE_PREFIX}par-ensure-reused-request-uri-prior-to-auth-completion-succeeds`] = {
    browser: [
      { match: authorize, 'match-limit': 1, tasks: [{ task: 'First visit: the sign-in page, left alone', match: `${issuer}/login*`, commands: [] }] },
      ...errorPageOrSignIn.browser,
    ],
  };

  const client = (c: FapiClient) => ({ client_id: c.client_id, scope: input.scope, jwks: c.jwks });
  return {
    alias: input.alias,
    description: `Keyflow AS (FAPI 2.0, ${input.openid ? 'OpenID Connect' : 'plain OAuth'})`,
    server: { discoveryUrl: `${issuer}/.well-known/${input.openid ? 'openid-configuration' : 'oauth-authorization-server'}` },
    client: client(input.clients[0]),
    client2: client(input.clients[1]),
    resource: { resourceUrl: input.resourceUrl },
    browser: [signIn],
    override,
  };
}
