// The Python and Go recipes of docs/relying-parties.md, run as they are
// written (tools/relying-parties), against a real Keyflow, with headless
// Chromium signing in on Keyflow's pages: Authlib's Flask client (PKCE, the
// ID token verified) calling a PyJWT resource server with the user's access
// token; go-oidc with golang.org/x/oauth2 signing in; and both resource
// servers accepting the access tokens of a new app made with the README's
// command unchanged, and of a machine client, and refusing what is not an
// access token for them. Each app is made with the operator CLI, as the recipe
// says.
import type { Page } from 'playwright-core';
import { useBrowser } from '../../support/browser.js';
import { runCli } from '../../support/cli.js';
import { testDatabase } from '../../support/database.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { postForm } from '../../support/http.js';
import { recipePort, startGoRecipe, startPythonRecipe, type RunningRecipe } from '../../support/rp-recipes.js';
import { codeFlowTokens, FLOW_PASSWORD } from '../../support/token-flow.js';
import { newRp } from '../../../tools/fixtures/clients.js';
import { newUser } from '../../../tools/fixtures/users.js';

const ORDERS = 'https://orders.example/';
const database = testDatabase('rp_recipes');
const api = useTestApi(database.env);
const browser = useBrowser();
const running: RunningRecipe[] = [];
afterAll(async () => {
  await Promise.all(running.map((r) => r.stop()));
});

/** `keyflow clients create` as the recipe gives it: the new app's client_id and secret. */
async function createApp(args: string[]): Promise<{ clientId: string; secret: string }> {
  const r = await runCli(['clients', 'create', '--name', 'Recipe app', ...args], database.env);
  if (r.code !== 0) throw new Error(r.stderr);
  const app = JSON.parse(r.stdout);
  return { clientId: app.client_id, secret: app.client_secret };
}

async function started(recipe: Promise<RunningRecipe>): Promise<RunningRecipe> {
  const r = await recipe;
  running.push(r);
  return r;
}

/** Chromium at the app's /login: signs in on Keyflow's page and allows; the JSON the app's callback answers. */
async function signInThrough(app: RunningRecipe): Promise<Json> {
  const { email } = await newUser(api.deps, { prefix: 'recipe', password: FLOW_PASSWORD, name: 'Recipe User' });
  const page: Page = await browser.newPage();
  await page.goto(`${app.url}/login`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password').fill(FLOW_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL(`${app.url}/callback?**`);
  const text = (await page.locator('body').textContent()) ?? '';
  try {
    return { ...JSON.parse(text), email };
  } catch {
    throw new Error(`the app answered: ${text}\n${app.output()}`);
  }
}

const orders = (server: RunningRecipe, token: string) =>
  fetch(`${server.url}/orders`, { headers: { authorization: `Bearer ${token}` } }).then(async (r) => ({ status: r.status, body: (await r.json()) as Json }));

/** An access token of a machine client for `resource`. */
async function machineToken(resource: string): Promise<string> {
  const rp = await newRp(api.deps, { name: 'Recipe machine', redirectUris: [], machineAccess: [{ resource, scopes: ['orders:read'] }] });
  return (await postForm(api, '/api/oauth/token', { grant_type: 'client_credentials', resource }, rp.headers)).body.access_token as string;
}

/** A new app made with the README's command, unchanged (ML-DSA-65 ID tokens), allowed ORDERS: a user's access token for it. */
async function newAppUserToken(): Promise<{ accessToken: string; idToken: string }> {
  const redirect = 'https://readme-app.example/callback';
  const app = await createApp(['--redirect-uri', redirect, '--allowed-resource', ORDERS]);
  const { email } = await newUser(api.deps, { prefix: 'readme', password: FLOW_PASSWORD });
  const auth = { authorization: `Basic ${Buffer.from(`${app.clientId}:${app.secret}`).toString('base64')}` };
  const issuer = api.deps.config.issuer;
  // The resource is asked for at the authorization endpoint (RFC 8707): the code flow helper's URL plus the parameter.
  const tokens = await codeFlowTokens(issuer, { id: app.clientId, headers: auth }, redirect, 'openid email', email, FLOW_PASSWORD, { resource: ORDERS });
  expect(tokens.status).toBe(200);
  return { accessToken: tokens.body.access_token, idToken: tokens.body.id_token };
}

describe('Python: Authlib (Flask) and PyJWT', () => {
  it('signs a user in with Authlib, which then calls a PyJWT resource server with the access token', async () => {
    const resourceServer = await started(
      recipePort().then((port) => startPythonRecipe('pyjwt_resource_server.py', { KEYFLOW_ISSUER: api.deps.config.issuer, RESOURCE: ORDERS }, port)),
    );
    const port = await recipePort();
    const redirect = `http://127.0.0.1:${port}/callback`;
    const app = await createApp(['--redirect-uri', redirect, '--id-token-alg', 'RS256', '--allowed-resource', ORDERS]);
    const login = await started(
      startPythonRecipe(
        'authlib_login.py',
        {
          KEYFLOW_ISSUER: api.deps.config.issuer,
          CLIENT_ID: app.clientId,
          CLIENT_SECRET: app.secret,
          REDIRECT_URI: redirect,
          RESOURCE: ORDERS,
          ORDERS_URL: `${resourceServer.url}/orders`,
          // The tests' Keyflow is plain http on loopback; a real one is https.
          AUTHLIB_INSECURE_TRANSPORT: '1',
        },
        port,
      ),
    );
    const answer = await signInThrough(login);
    expect(answer).toMatchObject({ signed_in: true, email: answer.email, sub: expect.any(String) });
    expect(answer.orders).toEqual({ status: 200, body: { sub: answer.sub, client_id: app.clientId, scope: 'openid email profile' } });
  });

  it('verifies with PyJWT the access tokens of a new app made unchanged and of a machine client, and refuses an ID token or another resource', async () => {
    const resourceServer = await started(
      recipePort().then((port) => startPythonRecipe('pyjwt_resource_server.py', { KEYFLOW_ISSUER: api.deps.config.issuer, RESOURCE: ORDERS }, port)),
    );
    const user = await newAppUserToken();
    expect((await orders(resourceServer, user.accessToken)).status).toBe(200);
    expect((await orders(resourceServer, await machineToken(ORDERS))).body).toMatchObject({ scope: 'orders:read' });
    const refused = [await orders(resourceServer, user.idToken), await orders(resourceServer, await machineToken('https://elsewhere.example/'))];
    expect(refused.map((r) => [r.status, r.body.error])).toEqual([
      [401, 'invalid_token'],
      [401, 'invalid_token'],
    ]);
  });
});

describe('Go: go-oidc and golang.org/x/oauth2', () => {
  it('signs a user in: PKCE, the code redeemed, the ID token verified', async () => {
    const port = await recipePort();
    const redirect = `http://127.0.0.1:${port}/callback`;
    const app = await createApp(['--redirect-uri', redirect, '--id-token-alg', 'RS256']);
    const login = await started(
      startGoRecipe('login', { KEYFLOW_ISSUER: api.deps.config.issuer, CLIENT_ID: app.clientId, CLIENT_SECRET: app.secret, REDIRECT_URI: redirect }, port),
    );
    const answer = await signInThrough(login);
    expect(answer).toMatchObject({ signed_in: true, email: answer.email, sub: expect.any(String) });
  });

  it('verifies the access tokens of a new app made unchanged and of a machine client, and refuses an ID token or another resource', async () => {
    const resourceServer = await started(
      recipePort().then((port) => startGoRecipe('resource', { KEYFLOW_ISSUER: api.deps.config.issuer, RESOURCE: ORDERS }, port)),
    );
    const user = await newAppUserToken();
    expect((await orders(resourceServer, user.accessToken)).status).toBe(200);
    expect((await orders(resourceServer, await machineToken(ORDERS))).body).toMatchObject({ scope: 'orders:read' });
    const refused = [await orders(resourceServer, user.idToken), await orders(resourceServer, await machineToken('https://elsewhere.example/'))];
    expect(refused.map((r) => [r.status, r.body.error])).toEqual([
      [401, 'invalid_token'],
      [401, 'invalid_token'],
    ]);
  });
});
