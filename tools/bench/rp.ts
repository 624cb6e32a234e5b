// What the HTTP benchmarks do as a relying party: make a confidential client,
// sign a fresh user in and consent once, then run authorize → token →
// UserInfo, refresh rotations and introspection against a running Keyflow.
import type { IdTokenAlg } from '../../lib/model/clients.js';
import { s256Challenge } from '../../lib/model/pkce.js';
import { newSecret } from '../../lib/security/secrets.js';
import type { Store } from '../../lib/store/db.js';
import { createClient } from '../../lib/store/clients.js';
import type { HttpUser } from '../fixtures/http-user.js';
import { KeyflowAgent } from './keyflow-agent.js';

export const REDIRECT = 'https://bench-rp.example/cb';

/** A benchmark's client: its id, scope and HTTP Basic credentials. */
export interface BenchRp {
  base: string;
  clientId: string;
  scope: string;
  basic: string;
}

export async function benchRp(store: Store, base: string, opts: { name: string; scopes: string[]; alg: IdTokenAlg }): Promise<BenchRp> {
  const { client, clientSecret } = await createClient(store, {
    name: opts.name,
    redirectUris: [{ type: 'equals', value: REDIRECT }],
    allowedScopes: opts.scopes,
    idTokenSignedResponseAlg: opts.alg,
  });
  return { base, clientId: client._id, scope: opts.scopes.join(' '), basic: `Basic ${Buffer.from(`${client._id}:${clientSecret}`).toString('base64')}` };
}

const authorizeUrl = (rp: BenchRp, challenge: string) =>
  `${rp.base}/api/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: rp.clientId, redirect_uri: REDIRECT, scope: rp.scope, state: 's', code_challenge: challenge, code_challenge_method: 'S256' })}`;

/** A new user (made in the store), signed in through the browser flow, who consented to the client. */
export async function signedInAgent(store: Store, rp: BenchRp, emailPrefix: string): Promise<HttpUser> {
  const agent = await KeyflowAgent.create(store, rp.base, emailPrefix);
  const back = await agent.authorizeFirst(authorizeUrl(rp, s256Challenge(newSecret())));
  if (!back.searchParams.get('code')) throw new Error('warm-up sign-in failed');
  return agent.http;
}

export interface TokenAnswer {
  status: number;
  body: { access_token?: string; refresh_token?: string; error?: string };
}

/** A token endpoint request authenticated with the client's secret. */
export async function postToken(rp: BenchRp, body: Record<string, string>): Promise<TokenAnswer> {
  const res = await fetch(`${rp.base}/api/oauth/token`, {
    method: 'POST',
    headers: { authorization: rp.basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body),
  });
  return { status: res.status, body: (await res.json()) as TokenAnswer['body'] };
}

/** Authorization (consent remembered) and code exchange; the token request's latency with the tokens. */
export async function codeExchange(rp: BenchRp, agent: HttpUser): Promise<{ tokenMs: number; tokens: TokenAnswer }> {
  const verifier = newSecret();
  const auth = await agent.request(authorizeUrl(rp, s256Challenge(verifier)));
  const code = new URL(auth.headers.get('location')!).searchParams.get('code');
  if (!code) throw new Error(`no code (status ${auth.status})`);
  const t0 = performance.now();
  const tokens = await postToken(rp, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier });
  const tokenMs = performance.now() - t0;
  if (!tokens.body.access_token) throw new Error(`token ${tokens.status}`);
  return { tokenMs, tokens };
}

export async function userinfo(rp: BenchRp, accessToken: string): Promise<void> {
  const info = await fetch(`${rp.base}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
  await info.arrayBuffer();
  if (info.status !== 200) throw new Error(`userinfo ${info.status}`);
}

/** Introspects a token the client holds; throws unless it is active. */
export async function introspect(rp: BenchRp, token: string, hint: 'access_token' | 'refresh_token'): Promise<void> {
  const res = await fetch(`${rp.base}/api/oauth/introspect`, {
    method: 'POST',
    headers: { authorization: rp.basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, token_type_hint: hint }),
  });
  const body = (await res.json()) as { active?: boolean };
  if (!body.active) throw new Error(`introspect ${res.status}: not active`);
}

/** Runs `step` in `workers` concurrent loops for `seconds`; how many steps passed and failed, and for how long. */
export async function loopFor(
  seconds: number,
  workers: number,
  step: (worker: number) => Promise<void>,
): Promise<{ passed: number; failed: number; elapsed: number }> {
  let passed = 0;
  let failed = 0;
  const end = Date.now() + seconds * 1000;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      while (Date.now() < end) {
        try {
          await step(w);
          passed++;
        } catch {
          failed++;
        }
      }
    }),
  );
  return { passed, failed, elapsed: (Date.now() - started) / 1000 };
}
