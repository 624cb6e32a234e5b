// node-oidc-provider configured as a careful operator would for the flows the
// comparison drives: PKCE required, confidential clients (client_secret_basic)
// with one redirect URI, scopes `openid profile email offline_access`, refresh
// token rotation, introspection, the device flow, RS256 ID tokens, and its
// default opaque access tokens.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import Provider from 'oidc-provider';
import type { AdapterFactory, ClientMetadata, Configuration, PeerProvider, ProviderContext } from './provider-types.js';
import type { AccountStore } from './accounts.js';

export const PEER_SCOPES = ['openid', 'profile', 'email', 'offline_access'];

export interface PeerClient {
  id: string;
  secret: string;
  redirectUri: string;
}

export function peerProvider(issuer: string, clients: PeerClient[], accounts: AccountStore, adapter?: AdapterFactory): PeerProvider {
  // An RSA key made at start: the peer's only signing key (it has no ML-DSA-65).
  const jwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const metadata = clients.map((c): ClientMetadata => ({
    client_id: c.id,
    client_secret: c.secret,
    redirect_uris: [c.redirectUri],
    grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    id_token_signed_response_alg: 'RS256',
    scope: PEER_SCOPES.join(' '),
  }));
  const configuration: Configuration = {
    ...(adapter ? { adapter } : {}),
    clients: metadata,
    jwks: { keys: [{ ...jwk, alg: 'RS256', use: 'sig', kid: 'bench-rs256' }] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    scopes: PEER_SCOPES,
    claims: { openid: ['sub'], profile: ['name', 'preferred_username'], email: ['email', 'email_verified'] },
    // Every client, confidential ones included, must send a code challenge (as Keyflow requires by default).
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      introspection: { enabled: true, allowedPolicy: () => true },
      revocation: { enabled: true },
      deviceFlow: { enabled: true },
    },
    // Sign-in and consent are not what is measured: every interaction goes to
    // the tiny handler in main.ts, which finishes it at once for the account
    // the benchmark names (header x-bench-account), consenting to what the
    // client asked.
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // Consent is remembered per session and client, as Keyflow remembers it:
    // the grant recorded at the first consent is loaded again, so a later
    // authorization for the same scopes answers with a code at once.
    loadExistingGrant: async (ctx: ProviderContext) => {
      const { client, session, result } = ctx.oidc;
      const grantId = result?.consent?.grantId ?? (client && session?.grantIdFor(client.clientId));
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    findAccount: async (_ctx, sub) => {
      const claims = await accounts.find(sub);
      return claims && { accountId: sub, claims: () => Promise.resolve(claims) };
    },
    rotateRefreshToken: true,
    // Keyflow's defaults: 1 h access and ID tokens, 60 s codes, 30-day refresh families, 10-minute device codes.
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: 30 * 24 * 3600,
      Grant: 30 * 24 * 3600,
      DeviceCode: 600,
      Interaction: 3600,
      Session: 14 * 24 * 3600,
      ClientCredentials: 600,
      BackchannelAuthenticationRequest: 600,
    },
    renderError: (ctx, out) => {
      (ctx as { type: string; body: string }).type = 'json';
      (ctx as { type: string; body: string }).body = JSON.stringify(out);
    },
  };
  return new Provider(issuer, configuration) as unknown as PeerProvider;
}
