// The code flow as an RP and a person run it, over HTTP: a new user signs in
// and allows, the client redeems the code (PKCE S256) with its secret. For
// tests about what happens to the tokens afterwards.
import type { NewClientInput } from '../../lib/model/clients.js';
import { s256Challenge } from '../../lib/model/pkce.js';
import { newSecret } from '../../lib/security/secrets.js';
import type { UserDoc } from '../../lib/model/users.js';
import { SearchAttributes } from '../../lib/temporal/search-attributes.js';
import { familyWorkflowId } from '../../lib/model/refresh-family.js';
import { eventually, type Json, type ApiUnderTest } from './harness.js';
import { jwtClaims, postForm, type Answer } from './http.js';
import { newUser } from '../../tools/fixtures/users.js';
import { HttpUser } from '../../tools/fixtures/http-user.js';
import { newRp } from '../../tools/fixtures/clients.js';

export const FLOW_PASSWORD = 'token flow password';
export const FLOW_REDIRECT = 'https://token-flow-rp.example/cb';
/** What an authorization code looks like: a sealed record (version, IV, ciphertext, tag), opaque to its holder. */
export const AUTHORIZATION_CODE_FORMAT = /^kfc1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/;

export interface TestRp {
  id: string;
  /** Basic client authentication. */
  auth: { authorization: string };
}

/** A confidential client (RS256 tokens) redirecting to FLOW_REDIRECT. */
export async function newTestRp(api: ApiUnderTest, overrides: Partial<NewClientInput> = {}): Promise<TestRp> {
  const rp = await newRp(api.deps, {
    name: 'Token flow RP',
    redirectUris: [{ type: 'equals', value: FLOW_REDIRECT }],
    allowedScopes: ['openid', 'profile', 'email', 'offline_access'],
    idTokenSignedResponseAlg: 'RS256',
    ...overrides,
  });
  return { id: rp.id, auth: { authorization: rp.basic } };
}

/**
 * The browser part of an authorization over HTTP: `agent` opens `url`, signs
 * in as `email` when the sign-in page asks, answers consent with `decision`
 * when asked; the redirect back to the client.
 */
export async function authorizeAs(agent: HttpUser, url: string, email: string | undefined, password: string, decision = 'allow'): Promise<URL> {
  let step = await agent.get(url);
  if (step.url.includes('/login')) step = await agent.signIn(step, email!, password);
  if (step.url.includes('/consent')) step = await agent.submit(await step.res.text(), '/consent', { decision });
  if (!step.external) throw new Error(`flow stopped at ${step.url} (${step.res.status}): ${(await step.res.text()).slice(0, 500)}`);
  return step.external;
}

/**
 * A whole code flow over HTTP for an RP with a redirect URI of its own: a new
 * agent signs in as `email` and allows `scope`, the RP redeems the code (PKCE
 * S256) with its `headers`: the token endpoint's answer.
 */
export async function codeFlowTokens(
  base: string,
  rp: { id: string; headers: Record<string, string> },
  redirectUri: string,
  scope: string,
  email: string,
  password: string,
  /** More authorization parameters (e.g. `resource`). */
  extra: Record<string, string> = {},
): Promise<Answer> {
  const verifier = newSecret();
  const params = {
    response_type: 'code',
    client_id: rp.id,
    redirect_uri: redirectUri,
    scope,
    code_challenge: s256Challenge(verifier),
    code_challenge_method: 'S256',
    ...extra,
  };
  const back = await authorizeAs(new HttpUser(base), `${base}/api/oauth/authorize?${new URLSearchParams(params)}`, email, password);
  const grant = { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: redirectUri, code_verifier: verifier };
  return postForm(base, '/api/oauth/token', grant, rp.headers);
}

/**
 * The authorization URL of a code flow of `rp` to FLOW_REDIRECT, PKCE S256 with
 * `verifier`; `extra` parameters override (an object) or are added (pairs).
 */
export function flowAuthorizeUrl(
  api: ApiUnderTest,
  rp: { id: string },
  scope: string,
  verifier: string,
  extra: Record<string, string> | [string, string][] = {},
): string {
  const url = new URL('/api/oauth/authorize', api.url);
  const params = {
    response_type: 'code',
    client_id: rp.id,
    redirect_uri: FLOW_REDIRECT,
    scope,
    code_challenge: s256Challenge(verifier),
    code_challenge_method: 'S256',
  };
  for (const [k, v] of Object.entries(Array.isArray(extra) ? params : { ...params, ...extra })) url.searchParams.set(k, v);
  if (Array.isArray(extra)) for (const [k, v] of extra) url.searchParams.append(k, v);
  return url.href;
}

/**
 * A user (new unless given) signs in with `agent` (new unless given) and
 * allows `scope`; the RP redeems the code. Returns the token response, the
 * user and the agent (signed in).
 */
export async function runCodeFlow(
  api: ApiUnderTest,
  rp: TestRp,
  scope: string,
  opts: { user?: { email: string; doc: UserDoc }; agent?: HttpUser; extra?: [string, string][] } = {},
): Promise<{ tokens: Json; user: UserDoc; email: string; agent: HttpUser }> {
  const { email, user } = opts.user ? { email: opts.user.email, user: opts.user.doc } : await newUser(api.deps, { prefix: 'flow', password: FLOW_PASSWORD });
  const agent = opts.agent ?? new HttpUser(api.url);
  const verifier = newSecret();
  const back = await authorizeAs(agent, flowAuthorizeUrl(api, rp, scope, verifier, opts.extra), email, FLOW_PASSWORD);
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`no code: ${back.href}`);
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
export async function expectFamilyRevoked(api: ApiUnderTest, accessToken: string): Promise<void> {
  const handle = api.deps.temporal.client.workflow.getHandle(familyWorkflowId(jwtClaims(accessToken).grant_id));
  await eventually(async () => {
    const d = await handle.describe();
    expect([d.status.name, d.typedSearchAttributes.get(SearchAttributes.state)]).toEqual(['COMPLETED', 'revoked']);
  }, 15_000);
}

/** The parameters of a code request of `rp` with a fresh PKCE pair and state (the verifier returned); `extra` adds or overrides. */
export function pkceCodeRequest(rp: { id: string }, redirectUri: string, extra: Record<string, string> = {}) {
  const verifier = newSecret();
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: rp.id,
    redirect_uri: redirectUri,
    scope: 'openid profile',
    state: `st-${newSecret().slice(0, 8)}`,
    code_challenge: s256Challenge(verifier),
    code_challenge_method: 'S256',
    ...extra,
  };
  return { params, verifier };
}
