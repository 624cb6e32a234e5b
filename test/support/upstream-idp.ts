// A real upstream OpenID provider for "Sign in with …" tests: oidc-provider
// on 127.0.0.1 with one confidential client, PKCE required, and its
// development login and consent pages (any login; the login is the `sub`).
// `accounts` gives a login its email and email_verified. It answers behind a
// small front proxy on the issuer's port, which records every request (so a
// test sees whether Keyflow reached the upstream at all) and can replace the
// `id_token` of the token endpoint's answer (a forged or mis-issued token).
import http from 'node:http';
import Provider from 'oidc-provider';
import type { Page } from 'playwright-core';
import { listenLocally } from './local-server.js';

export interface UpstreamAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface UpstreamIdp {
  issuer: string;
  accounts: Map<string, UpstreamAccount>;
  /** Every request the upstream received, as `METHOD /path`. */
  requests: string[];
  /** When set, replaces the `id_token` in the token endpoint's answers (null: leaves it out). */
  rewriteIdToken: IdTokenRewrite | null;
  close(): Promise<void>;
}

export type IdTokenRewrite = (idToken: string) => Promise<string | null>;

export interface UpstreamClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

export async function startUpstreamIdp(clients: UpstreamClient[]): Promise<UpstreamIdp> {
  const accounts = new Map<string, UpstreamAccount>();
  const server = http.createServer();
  const front = http.createServer();
  const inner = await listenLocally(server);
  const innerPort = inner.port;
  const outer = await listenLocally(front);
  const issuer = outer.url;
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
  const idp: UpstreamIdp = {
    issuer,
    accounts,
    requests: [],
    rewriteIdToken: null,
    close: () => Promise.all([outer.close(), inner.close()]).then(() => undefined),
  };
  front.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    idp.requests.push(`${req.method} ${req.url}`);
    // The Host header goes through as is: the provider writes its URLs for the front's address, the issuer.
    const forward = http.request({ host: '127.0.0.1', port: innerPort, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      const rewrite = idp.rewriteIdToken;
      if (!rewrite || req.method !== 'POST' || req.url !== '/token' || answer.statusCode !== 200) {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        return;
      }
      rewrittenTokens(answer, rewrite).then(
        (body) => {
          res.writeHead(200, { ...answer.headers, 'content-length': String(body.length) });
          res.end(body);
        },
        (err: unknown) => {
          console.error('upstream front: the ID token rewrite failed', err);
          res.destroy();
        },
      );
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  return idp;
}

async function rewrittenTokens(answer: http.IncomingMessage, rewrite: IdTokenRewrite): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of answer) chunks.push(chunk as Buffer);
  const tokens = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
  if (typeof tokens.id_token === 'string') {
    const replaced = await rewrite(tokens.id_token);
    if (replaced === null) delete tokens.id_token;
    else tokens.id_token = replaced;
  }
  return Buffer.from(JSON.stringify(tokens));
}

/** Each sign-in starts at the upstream's login page (its session cookie on 127.0.0.1 forgotten). */
export const forgetUpstream = (page: Page) => page.context().clearCookies({ domain: '127.0.0.1' });

/** The upstream's development login and consent pages, as `login`. */
export async function upstreamPages(page: Page, login: string): Promise<void> {
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('anything');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

/** Clicks "Sign in with <name>" on /login of `issuer`; the browser is then at the upstream (or on Keyflow's error page). */
export async function startUpstreamSignIn(page: Page, issuer: string, name: string): Promise<void> {
  await forgetUpstream(page);
  await page.goto(`${issuer}/login`);
  await page.getByRole('link', { name: `Sign in with ${name}` }).click();
}

/** From Keyflow's sign-in page through the upstream's login and consent pages, as `login`. */
export async function signInUpstream(page: Page, issuer: string, name: string, login: string): Promise<void> {
  await startUpstreamSignIn(page, issuer, name);
  await upstreamPages(page, login);
}
