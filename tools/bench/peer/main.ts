// The benchmark's peer: node-oidc-provider in its own process (its own event
// loop, as Keyflow's api has), started by tools/bench/peer/process.ts with its
// settings in PEER_SETTINGS. It tells the parent it listens with an IPC message
// and exits when the parent goes away, so a killed benchmark leaves no peer.
import http from 'node:http';
import type { Adapter } from './provider-types.js';
import { benchAccount, memoryAccounts, type AccountStore } from './accounts.js';
import { mongoAdapter } from './mongo-adapter.js';
import { peerProvider, type PeerClient } from './provider.js';

export interface PeerSettings {
  port: number;
  clients: PeerClient[];
  /** Null: oidc-provider's default in-memory adapter. */
  mongo: { uri: string; database: string } | null;
}

const settings = JSON.parse(process.env.PEER_SETTINGS ?? 'null') as PeerSettings | null;
if (!settings || !process.send) throw new Error('the peer is started by the compare benchmark (PEER_SETTINGS and an IPC channel)');
process.on('disconnect', () => process.exit(0));

let accounts: AccountStore = memoryAccounts();
let adapter: (new (name: string) => Adapter) | undefined;
if (settings.mongo) ({ Adapter: adapter, accounts } = await mongoAdapter(settings.mongo.uri, settings.mongo.database));

const issuer = `http://127.0.0.1:${settings.port}`;
const provider = peerProvider(issuer, settings.clients, accounts, adapter);
provider.on('server_error', (_ctx, error) => console.error('peer server_error:', error));
const callback = provider.callback();

/** Finishes an interaction at once: signs in the named account and grants what the client asked. */
async function finishInteraction(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const accountId = req.headers['x-bench-account'];
  if (typeof accountId !== 'string' || !accountId) {
    res.writeHead(400).end('x-bench-account header required');
    return;
  }
  const details = await provider.interactionDetails(req, res);
  await accounts.save(benchAccount(accountId));
  const grant =
    (details.grantId && (await provider.Grant.find(details.grantId))) || new provider.Grant({ accountId, clientId: String(details.params.client_id) });
  const missing = details.prompt.details;
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(resource, scopes.join(' '));
  await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId: await grant.save() } });
}

const server = http.createServer((req, res) => {
  if (req.url?.startsWith('/interaction/')) {
    finishInteraction(req, res).catch((error: unknown) => {
      console.error('peer interaction:', error);
      if (!res.headersSent) res.writeHead(500).end();
    });
  } else callback(req, res);
});
server.listen(settings.port, '127.0.0.1', () => process.send!({ ready: issuer }));
