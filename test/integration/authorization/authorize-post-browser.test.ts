// Authorization requests by POST and form_post responses in headless
// Chromium. The RP's site runs on 127.0.0.1, the api on localhost: another
// site, so its auto-posting page sends the request as an RP really would,
// cross-site, without Keyflow's SameSite=Lax cookies. Its redirect endpoint
// records what comes back: a GET (query) or a POSTed form (form_post).
import { AUTHORIZATION_CODE_FORMAT } from '../../support/token-flow.js';
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { s256Challenge } from '../../../lib/model/pkce.js';
import { useBrowser } from '../../support/browser.js';
import { useLocalhostApi, type Json } from '../../support/harness.js';
import { startRpSite, type RpHit, type RpSite } from '../../support/rp-site.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { newRp, type FixtureRp } from '../../../tools/fixtures/clients.js';

const PASSWORD = 'authorize post browser password';
const RP_NAME = 'Posting RP';
const TIMEOUT = 60_000;

let authorizeEndpoint: string;
const browser = useBrowser();
let site: RpSite;

const api = useLocalhostApi();
beforeAll(async () => {
  authorizeEndpoint = `${api.issuer}/api/oauth/authorize`;
});
beforeEach(async () => {
  site = await startRpSite();
});
afterEach(async () => {
  await browser.closeAll();
  await site.close();
});

/** A page in a fresh browser context (own cookies), closed after the test. */
const newPage = browser.newPage;

const newClient = () =>
  newRp(api.deps, {
    name: RP_NAME,
    redirectUris: [{ type: 'equals', value: site.redirectUri }],
    allowedScopes: ['openid', 'profile', 'email'],
    idTokenSignedResponseAlg: 'RS256',
    isVerified: true,
  });

const newPerson = () => newUser(api.deps, { prefix: 'post-browser', password: PASSWORD, name: 'Post Browser' });

const random = () => randomBytes(12).toString('base64url');

/** An authorization request's parameters with PKCE, a fresh state and nonce; `extra` adds or overrides. */
function request(client: FixtureRp, extra: Record<string, string> = {}) {
  const verifier = randomBytes(32).toString('base64url');
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: client.id,
    redirect_uri: site.redirectUri,
    scope: 'openid profile email',
    state: `st-${random()}`,
    nonce: `n-${random()}`,
    code_challenge: s256Challenge(verifier),
    code_challenge_method: 'S256',
    ...extra,
  };
  return { params, verifier };
}

const byGet = (params: Record<string, string>) => `${authorizeEndpoint}?${new URLSearchParams(params)}`;

async function signIn(page: Page, email: string): Promise<void> {
  await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

async function consent(page: Page, decision: 'Allow' | 'Deny'): Promise<void> {
  await page.getByRole('heading', { name: `Allow ${RP_NAME}?` }).waitFor();
  await page.getByRole('button', { name: decision, exact: true }).click();
}

/** The parameters that came back, and how: a GET's query, or a POSTed form (nothing in the query then). */
function answerOf(hit: RpHit): { how: 'query' | 'form_post'; params: Record<string, string> } {
  if (hit.method === 'GET') return { how: 'query', params: Object.fromEntries(hit.query) };
  expect(hit.contentType).toBe('application/x-www-form-urlencoded');
  expect([...hit.query]).toEqual([]);
  return { how: 'form_post', params: Object.fromEntries(hit.form!) };
}

async function redeem(client: FixtureRp, code: string, verifier: string): Promise<Json> {
  const res = await fetch(`${api.issuer}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: client.basic },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: site.redirectUri, code_verifier: verifier }),
  });
  const body = (await res.json()) as Json;
  expect({ status: res.status, body }).toEqual({ status: 200, body: expect.objectContaining({ id_token: expect.any(String) }) });
  return body;
}

const code = expect.stringMatching(AUTHORIZATION_CODE_FORMAT);

describe('authorization requests by POST from another site', () => {
  it(
    'gives a signed-in browser its code for a cross-site POST (which carries no cookie), prompt=none included, by query or form_post',
    async () => {
      const { email } = await newPerson();
      const client = await newClient();
      const page = await newPage();
      const first = request(client);
      await page.goto(byGet(first.params));
      await signIn(page, email);
      await consent(page, 'Allow');
      expect(answerOf(await site.nextHit()).params.code).toEqual(code);

      // The RP's page posts the request; Chromium sends it without Keyflow's cookies.
      const silent = request(client, { prompt: 'none' });
      const posted = page.waitForRequest((r) => r.method() === 'POST' && r.url() === authorizeEndpoint);
      await page.goto(site.autoPostPage(authorizeEndpoint, silent.params));
      expect((await (await posted).allHeaders()).cookie).toBeUndefined();
      const answer = answerOf(await site.nextHit());
      expect(answer).toEqual({ how: 'query', params: { code, state: silent.params.state, iss: api.issuer } });
      await redeem(client, answer.params.code!, silent.verifier);

      const silentFormPost = request(client, { prompt: 'none', response_mode: 'form_post' });
      await page.goto(site.autoPostPage(authorizeEndpoint, silentFormPost.params));
      const formAnswer = answerOf(await site.nextHit());
      expect(formAnswer).toEqual({ how: 'form_post', params: { code, state: silentFormPost.params.state, iss: api.issuer } });
      await redeem(client, formAnswer.params.code!, silentFormPost.verifier);
    },
    TIMEOUT,
  );

  it(
    "leaves the browser's binding alone: a request it started before the cross-site POST still finishes, and so does the POSTed one",
    async () => {
      const { email } = await newPerson();
      const client = await newClient();
      const started = await newPage();
      const before = request(client);
      await started.goto(byGet(before.params));
      await started.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();

      // Signed out, in another tab of the same browser: the RP's page posts a second request.
      const other = await started.context().newPage();
      const posted = request(client);
      await other.goto(site.autoPostPage(authorizeEndpoint, posted.params));
      await other.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();

      // Had the POST been given a binding cookie of its own, the first request would now belong to no browser.
      await signIn(started, email);
      await consent(started, 'Allow');
      const first = answerOf(await site.nextHit());
      expect(first.params).toEqual({ code, state: before.params.state, iss: api.issuer });
      await redeem(client, first.params.code!, before.verifier);

      await other.reload();
      await signIn(other, email);
      const second = answerOf(await site.nextHit());
      expect(second.params).toEqual({ code, state: posted.params.state, iss: api.issuer });
      await redeem(client, second.params.code!, posted.verifier);
    },
    TIMEOUT,
  );
});

describe('response_mode=form_post in a browser', () => {
  it(
    'posts code, state and iss to the redirect URI; the code redeems; a state with markup arrives intact and runs nothing',
    async () => {
      const { email, user } = await newPerson();
      const client = await newClient();
      const page = await newPage();
      const dialogs: string[] = [];
      page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });

      const auth = request(client, { response_mode: 'form_post' });
      await page.goto(byGet(auth.params));
      await signIn(page, email);
      await consent(page, 'Allow');
      const hit = await site.nextHit();
      expect(hit.method).toBe('POST');
      expect([...hit.form!.keys()]).toEqual(['code', 'state', 'iss']);
      const answer = answerOf(hit);
      expect(answer.params).toEqual({ code, state: auth.params.state, iss: api.issuer });
      await page.waitForURL(site.redirectUri);
      expect(await page.textContent('body')).toBe('ok');
      const tokens = await redeem(client, answer.params.code!, auth.verifier);
      expect(JSON.parse(Buffer.from(tokens.id_token.split('.')[1], 'base64url').toString())).toMatchObject({ sub: user._id, nonce: auth.params.nonce });

      const state = `"><script>alert('state')</script><img src=x onerror="alert('img')">`;
      const marked = request(client, { response_mode: 'form_post', state });
      await page.goto(byGet(marked.params));
      const markedAnswer = answerOf(await site.nextHit());
      expect(markedAnswer).toEqual({ how: 'form_post', params: { code, state, iss: api.issuer } });
      await redeem(client, markedAnswer.params.code!, marked.verifier);
      expect(dialogs).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'posts the errors too: access_denied from the consent page, login_required for prompt=none; without script, the Continue button sends them',
    async () => {
      const { email } = await newPerson();
      const client = await newClient();
      const page = await newPage();
      const denied = request(client, { response_mode: 'form_post' });
      await page.goto(byGet(denied.params));
      await signIn(page, email);
      await consent(page, 'Deny');
      expect(answerOf(await site.nextHit())).toEqual({
        how: 'form_post',
        params: { error: 'access_denied', error_description: expect.any(String), state: denied.params.state, iss: api.issuer },
      });

      const loginRequired = { error: 'login_required', error_description: expect.any(String), iss: api.issuer };
      const silent = request(client, { response_mode: 'form_post', prompt: 'none' });
      await (await newPage()).goto(byGet(silent.params));
      expect(answerOf(await site.nextHit())).toEqual({ how: 'form_post', params: { ...loginRequired, state: silent.params.state } });

      const noScript = await newPage({ javaScriptEnabled: false });
      const manual = request(client, { response_mode: 'form_post', prompt: 'none' });
      await noScript.goto(byGet(manual.params));
      await expect(site.nextHit(1000)).rejects.toThrow(/no request/);
      await noScript.getByRole('button', { name: 'Continue' }).click();
      expect(answerOf(await site.nextHit())).toEqual({ how: 'form_post', params: { ...loginRequired, state: manual.params.state } });
    },
    TIMEOUT,
  );
});
