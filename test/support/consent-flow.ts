// A code flow stopped at the consent page, over HTTP: the user signs in, the
// test reads and answers the page (team picker, site gate), then the RP
// redeems the code. For tests of what consent grants.
import { newSecret } from '../../lib/security/secrets.js';
import { HttpUser } from '../../tools/fixtures/http-user.js';
import type { FixtureUser } from '../../tools/fixtures/users.js';
import { type Json, type ApiUnderTest } from './harness.js';
import { FLOW_PASSWORD, FLOW_REDIRECT, flowAuthorizeUrl, type TestRp } from './token-flow.js';
import { postForm } from './http.js';

export interface StartedFlow {
  agent: HttpUser;
  verifier: string;
  step: Awaited<ReturnType<HttpUser['get']>>;
}

/** Starts an authorization for `user` (FLOW_PASSWORD) and signs in if asked to; returns where the flow stands (a page or the RP). */
export async function startFlow(
  api: ApiUnderTest,
  rp: TestRp,
  user: FixtureUser,
  scope: string,
  extra: Record<string, string> = {},
  agent = new HttpUser(api.url),
): Promise<StartedFlow> {
  const verifier = newSecret();
  let step = await agent.get(flowAuthorizeUrl(api, rp, scope, verifier, { state: 's', ...extra }));
  if (step.url.includes('/login')) step = await agent.signIn(step, user.email, FLOW_PASSWORD);
  return { agent, verifier, step };
}

/** Redeems the code the RP got; expects 200 and returns the token response. */
export async function redeemCode(api: ApiUnderTest, rp: TestRp, flow: StartedFlow, external: URL): Promise<Json> {
  const code = external.searchParams.get('code');
  if (!code) throw new Error(`no code: ${external.href}`);
  const { res, body } = await postForm(
    api,
    '/api/oauth/token',
    { grant_type: 'authorization_code', code, redirect_uri: FLOW_REDIRECT, code_verifier: flow.verifier },
    rp.auth,
  );
  if (res.status !== 200) throw new Error(`token request failed: ${JSON.stringify(body)}`);
  return body;
}

/** Runs the whole flow, picking `teamId` at consent (prompt=consent: a team remembered from an earlier consent is not reused): the token response. */
export async function tokensForTeam(api: ApiUnderTest, rp: TestRp, user: FixtureUser, scope: string, teamId: string): Promise<Json> {
  const flow = await startFlow(api, rp, user, scope, { prompt: 'consent' });
  const done = await flow.agent.submit(await flow.step.res.text(), '/consent', { decision: 'allow', team: teamId });
  return redeemCode(api, rp, flow, done.external!);
}

/** The team picker's radio buttons: team id → disabled? */
export function teamPicker(page: string): Map<string, boolean> {
  return new Map([...page.matchAll(/<input type="radio" name="team" value="([^"]+)"( disabled)?/g)].map((m) => [m[1]!, m[2] !== undefined]));
}
