// What every grant handler of the token endpoint receives.
import type { Keyring } from '../../../lib/keys/keyring.js';
import type { Signer } from '../../../lib/keys/signer.js';
import type { Logger } from '../../../lib/runtime/log.js';
import type { ClientDoc, ClientLookup } from '../../../lib/store/clients.js';
import type { Store } from '../../../lib/store/db.js';
import type { FlowClient } from '../../../lib/flows/flow-client.js';
import type { ClientAssertionVerifier } from '../client-assertion.js';

/**
 * A token request's fields, as the token endpoint parsed them: `fields` each
 * sent once; resource (RFC 8707) and audience (RFC 8693) may repeat.
 */
export interface TokenParams {
  fields: Readonly<Partial<Record<string, string>>>;
  resource?: string | string[];
  audience?: string | string[];
}

export interface TokenDeps {
  issuer: string;
  store: Store;
  findClient: ClientLookup;
  signer: Signer;
  /** Verifies Keyflow's own access tokens (token exchange's subject_token). */
  keyring: Keyring;
  log: Logger;
  flows: FlowClient;
  refreshTokenTtlMs: number;
  /** Rotations after which a RefreshFamily run continues as new (REFRESH_FAMILY_ROTATIONS_PER_RUN). */
  refreshFamilyRotationsPerRun: number;
  /** private_key_jwt (createApp's verifier, which caches jwks_uri keys). */
  clientAssertions: ClientAssertionVerifier;
}

export interface GrantContext {
  client: ClientDoc;
  deps: TokenDeps;
  /** Thumbprint of the key of a valid DPoP proof sent with the request (RFC 9449): the tokens are bound to it. */
  dpopJkt?: string;
  params: TokenParams;
}
