// What every grant handler of the token endpoint receives.
import type { Signer } from '../../../keys/signer.js';
import type { Logger } from '../../../runtime/log.js';
import type { ClientDoc } from '../../../store/clients.js';
import type { Store } from '../../../store/db.js';

export interface TokenDeps {
  issuer: string;
  store: Store;
  signer: Signer;
  log: Logger;
}

export interface GrantContext {
  client: ClientDoc;
  deps: TokenDeps;
}
