// A real upstream OpenID provider for "Sign in with …" tests: oidc-provider
// on 127.0.0.1 with one confidential client, PKCE required, and its
// development login and consent pages (any login; the login is the `sub`).
// `accounts` gives a login its email and email_verified.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface UpstreamAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface UpstreamIdp {
  issuer: string;
  accounts: Map<string, UpstreamAccount>;
  close(): Promise<void>;
}

export interface UpstreamClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

export async function startUpstreamIdp(clients: UpstreamClient[]): Promise<UpstreamIdp> {
  const accounts = new Map<string, UpstreamAccount>();
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      redirect_uris: c.redirectUris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    })),
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub, ...accounts.get(sub) }) }),
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['upstream test cookie key'] },
  });
  server.on('request', provider.callback());
  return {
    issuer,
    accounts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
