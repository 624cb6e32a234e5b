// What every grant handler of the token endpoint receives.
import type { Client } from '@temporalio/client';
import type { Signer } from '../../../keys/signer.js';
import type { Logger } from '../../../runtime/log.js';
import type { ClientDoc, ClientLookup } from '../../../store/clients.js';
import type { Store } from '../../../store/db.js';

export interface TokenDeps {
  issuer: string;
  store: Store;
  findClient: ClientLookup;
  signer: Signer;
  log: Logger;
  temporal: Client;
  taskQueue: string;
  refreshTokenTtlMs: number;
}

export interface GrantContext {
  client: ClientDoc;
  deps: TokenDeps;
}
