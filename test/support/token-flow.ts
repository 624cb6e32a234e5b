// The code flow as an RP and a person run it, over HTTP: a new user signs in
// and allows, the client redeems the code (PKCE S256) with its secret. For
// tests about what happens to the tokens afterwards.
import type { RunningApi } from '../../api/server.js';
import type { NewClientInput } from '../../lib/domain/clients.js';
import { s256Challenge } from '../../lib/domain/pkce.js';
import { newSecret } from '../../lib/security/secrets.js';
import type { UserDoc } from '../../lib/store/users.js';
import { SearchAttributes } from '../../lib/temporal/search-attributes.js';
import { familyWorkflowId } from '../../lib/domain/refresh-family.js';
import { eventually, type Json } from './harness.js';
import { newUser } from '../../tools/fixtures/users.js';
import { HttpUser } from '../../tools/fixtures/http-user.js';
import { newRp } from '../../tools/fixtures/clients.js';

export const FLOW_PASSWORD = 'token flow password';
export const FLOW_REDIRECT = 'https://token-flow-rp.example/cb';

export interface TestRp {
  id: string;
  /** Basic client authentication. */
  auth: { authorization: string };
}

/** A confidential client (RS256 tokens) redirecting to FLOW_REDIRECT. */
export async function newTestRp(api: RunningApi, overrides: Partial<NewClientInput> = {}): Promise<TestRp> {
  const rp = await newRp(api.deps, {
    name: 'Token flow RP',
    redirectUris: [{ type: 'equals', value: FLOW_REDIRECT }],
    allowedScopes: ['openid', 'profile', 'email', 'offline_access'],
    idTokenSignedResponseAlg: 'RS256',
    ...overrides,
  });
  return { id: rp.id, auth: { authorization: rp.basic } };
}

/** POSTs a form to the api and parses the JSON answer (null for an empty body). */
export async function postForm(api: RunningApi, path: string, body: Record<string, string> | [string, string][], headers: Record<string, string> = {}) {
  const res = await fetch(`${api.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(body),
  });
  const text = await res.text();
  return { res, body: text ? JSON.parse(text) : null };
}

/**
 * A user (new unless given) signs in with `agent` (new unless given) and
 * allows `scope`; the RP redeems the code. Returns the token response, the
 * user and the agent (signed in).
 */
export async function runCodeFlow(
  api: RunningApi,
  rp: TestRp,
  scope: string,
  opts: { user?: { email: string; doc: UserDoc }; agent?: HttpUser; extra?: [string, string][] } = {},
): Promise<{ tokens: Json; user: UserDoc; email: string; agent: HttpUser }> {
  const { email, user } = opts.user ? { email: opts.user.email, user: opts.user.doc } : await newUser(api.deps, { prefix: 'flow', password: FLOW_PASSWORD });
  const agent = opts.agent ?? new HttpUser(api.url);
  const verifier = newSecret();
  const url = new URL('/api/oauth/authorize', api.url);
  for (const [k, v] of [
    ['response_type', 'code'],
    ['client_id', rp.id],
    ['redirect_uri', FLOW_REDIRECT],
    ['scope', scope],
    ['code_challenge', s256Challenge(verifier)],
    ['code_challenge_method', 'S256'],
    ...(opts.extra ?? []),
  ] as [string, string][]) {
    url.searchParams.append(k, v);
  }
  let step = await agent.get(url.href);
  if (step.url.includes('/login')) step = await agent.signIn(step, email, FLOW_PASSWORD);
  if (step.url.includes('/consent')) step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
  if (!step.external) throw new Error(`flow stopped at ${step.url} (${step.res.status})`);
  const code = step.external.searchParams.get('code');
  if (!code) throw new Error(`no code: ${step.external.href}`);
  const { res, body } = await postForm(
    api,
    '/api/oauth/token',
    { grant_type: 'authorization_code', code, redirect_uri: FLOW_REDIRECT, code_verifier: verifier },
    rp.auth,
  );
  if (res.status !== 200) throw new Error(`token request failed: ${JSON.stringify(body)}`);
  return { tokens: body, user, email, agent };
}

/** Waits until the RefreshFamily workflow of an access token's grant has ended as revoked. */
export async function expectFamilyRevoked(api: RunningApi, accessToken: string): Promise<void> {
  const handle = api.deps.temporal.client.workflow.getHandle(familyWorkflowId(jwtClaims(accessToken).grant_id));
  await eventually(async () => {
    const d = await handle.describe();
    expect([d.status.name, d.typedSearchAttributes.get(SearchAttributes.state)]).toEqual(['COMPLETED', 'revoked']);
  }, 15_000);
}

/** The claims of a JWT, unverified (the tests verify signatures where that is the point). */
export const jwtClaims = (jwt: string): Json => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString());
