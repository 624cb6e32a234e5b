// What every grant handler of the token endpoint receives.
import type { ClientDoc } from '../../../lib/model/clients.js';
import type { ApiContext } from '../../context.js';
import type { GrantIssuanceDeps } from '../../../lib/grants/issuance.js';
import type { RetryWindows } from '../../../lib/model/refresh-binding.js';

/**
 * A token request's fields, as the token endpoint parsed them: `fields` each
 * sent once; resource (RFC 8707) and audience (RFC 8693) may repeat.
 */
export interface TokenParams {
  fields: Readonly<Partial<Record<string, string>>>;
  resource?: string | string[];
  audience?: string | string[];
}

/** What issuing a grant's tokens needs, and `keyring`, which verifies Keyflow's own access tokens (token exchange's subject_token). */
export interface TokenDeps
  extends
    GrantIssuanceDeps,
    Pick<ApiContext, 'findClient' | 'userActive' | 'keyring' | 'kek' | 'log' | 'clientAssertions' | 'limits' | 'events' | 'audit' | 'refreshRotations'> {
  /** How long the token a rotation superseded may be retried (REFRESH_RETRY_WINDOW_SECONDS, …_PUBLIC_SECONDS; 0: never). */
  refreshRetryWindows: RetryWindows;
}

export interface GrantContext {
  client: ClientDoc;
  deps: TokenDeps;
  /** Thumbprint of the key of a valid DPoP proof sent with the request (RFC 9449): the tokens are bound to it. */
  dpopJkt?: string;
  params: TokenParams;
}
