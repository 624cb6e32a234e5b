// A stored authorization request belongs to the browser that started it, and
// consent given on it to the user who gave it. The attack this closes: an
// attacker starts a request for their own client with prompt=login, consents
// on it while signed in as themselves (the request then waits for a new
// sign-in), and sends the victim the resulting sign-in link; without the
// binding, the victim's sign-in finished the request and their code went to
// the attacker's redirect URI without the victim ever seeing a consent page.
import type { Page } from 'playwright-core';
import { createClient } from '../../../lib/store/clients.js';
import { useRpCallback, useBrowser } from '../../support/browser.js';
import { useLocalhostApi } from '../../support/harness.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { withPkce } from '../../../tools/fixtures/pkce.js';

const PASSWORD = 'consent binding password';
const TIMEOUT = 60_000;

const rp = useRpCallback();
const api = useLocalhostApi();

/** The attacker's own client, redirecting to a callback the attacker reads. */
async function attackerClient() {
  const { client } = await createClient(api.deps.store, {
    name: 'Innocent looking app',
    redirectUris: [{ type: 'equals', value: rp.redirectUri }],
    allowedScopes: ['openid', 'profile', 'email'],
    idTokenSignedResponseAlg: 'RS256',
  });
  return client._id;
}

const authorizePath = (clientId: string, extra: Record<string, string> = {}) =>
  `/api/oauth/authorize?${new URLSearchParams(withPkce({ response_type: 'code', client_id: clientId, redirect_uri: rp.redirectUri, scope: 'openid profile email', state: 'st', ...extra }))}`;

/**
 * The attacker's preparation over HTTP: signed in as themselves, a prompt=login
 * request is stored and waits for a sign-in; they allow it on the consent page
 * (which does not ask them to sign in again). Returns the request id, still pending.
 */
async function preparedRequest(attacker: HttpUser, clientId: string, email: string): Promise<string> {
  await attacker.signIn(await attacker.get('/login'), email, PASSWORD);
  const waiting = await attacker.get(authorizePath(clientId, { prompt: 'login' }));
  const requestId = new URL(waiting.url).searchParams.get('request');
  expect(requestId).toBeTruthy();
  const consent = await attacker.get(`/consent?request=${encodeURIComponent(requestId!)}`);
  expect(consent.res.status).toBe(200);
  const after = await attacker.submit(await consent.res.text(), '/consent', { decision: 'allow' });
  // prompt=login still wants a fresh sign-in: the request is back at the sign-in page, consented.
  expect(after.url).toContain(`/login?request=${encodeURIComponent(requestId!)}`);
  expect((await api.deps.store.authorizationRequests.findOne({ _id: requestId! }))?.consentedAt).toBeInstanceOf(Date);
  return requestId!;
}

describe('authorization requests bound to their browser', () => {
  it('refuses a victim who signs in through a request prepared in another browser: no code, no redirect', async () => {
    const attacker = await newUser(api.deps, { prefix: 'attacker', password: PASSWORD, name: 'attacker' });
    const victim = await newUser(api.deps, { prefix: 'victim', password: PASSWORD, name: 'victim' });
    const clientId = await attackerClient();
    const attackerAgent = new HttpUser(api.issuer);
    const requestId = await preparedRequest(attackerAgent, clientId, attacker.email);

    const victimAgent = new HttpUser(api.issuer);
    const link = await victimAgent.get(`/login?request=${encodeURIComponent(requestId)}`);
    const outcome = await victimAgent.signIn(link, victim.email, PASSWORD);
    expect(outcome.external).toBeUndefined();
    expect(outcome.res.status).toBe(403);
    expect(await outcome.res.text()).toContain('started in another browser');
    // Nor can the victim be walked through the consent page or the resume point.
    for (const path of [`/consent?request=${encodeURIComponent(requestId)}`, `/api/oauth/authorize/resume?request=${encodeURIComponent(requestId)}`]) {
      const r = await victimAgent.get(path);
      expect([path, r.res.status, r.external]).toEqual([path, 403, undefined]);
    }
    // The request is still the attacker's, in the attacker's browser only.
    const own = await attackerAgent.get(`/consent?request=${encodeURIComponent(requestId)}`);
    expect(own.res.status).toBe(200);
  });

  it('counts consent given on a request only for the user who gave it', async () => {
    const first = await newUser(api.deps, { prefix: 'first', password: PASSWORD, name: 'first' });
    const second = await newUser(api.deps, { prefix: 'second', password: PASSWORD, name: 'second' });
    const clientId = await attackerClient();
    const browser = new HttpUser(api.issuer);
    const requestId = await preparedRequest(browser, clientId, first.email);
    // The same browser, another user: sign-in replaces the session; the earlier consent is not theirs.
    const relogin = await browser.get(`/login?request=${encodeURIComponent(requestId)}`);
    const next = await browser.signIn(relogin, second.email, PASSWORD);
    expect(next.url).toContain('/consent?request=');
    expect(next.external).toBeUndefined();
    // The user who consented gets the code after signing in.
    const mine = await browser.get(`/login?request=${encodeURIComponent(requestId)}`);
    const back = await browser.signIn(mine, first.email, PASSWORD);
    expect(back.external?.searchParams.get('code')).toBeTruthy();
  });
});

describe('authorization requests bound to their browser, in Chromium', () => {
  const { newPage } = useBrowser();
  async function signIn(page: Page, email: string) {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }

  it(
    'the victim opening the attacker’s prepared sign-in link sees an error, and the attacker’s callback gets nothing',
    async () => {
      const attacker = await newUser(api.deps, { prefix: 'attacker', password: PASSWORD, name: 'attacker' });
      const victim = await newUser(api.deps, { prefix: 'victim', password: PASSWORD, name: 'victim' });
      const clientId = await attackerClient();

      // The attacker, in their own browser: signed in, a prompt=login request, consent given.
      const attackerPage = await newPage();
      await attackerPage.goto(`${api.issuer}/login`);
      await signIn(attackerPage, attacker.email);
      await attackerPage.waitForURL(`${api.issuer}/account`);
      await attackerPage.goto(`${api.issuer}${authorizePath(clientId, { prompt: 'login' })}`);
      await attackerPage.waitForURL(/\/login\?request=/);
      const link = attackerPage.url();
      const requestId = new URL(link).searchParams.get('request')!;
      await attackerPage.goto(`${api.issuer}/consent?request=${encodeURIComponent(requestId)}`);
      await attackerPage.getByRole('button', { name: 'Allow' }).click();
      await attackerPage.waitForURL(/\/login\?request=/);

      // The victim, in another browser, follows the link and signs in.
      const victimPage = await newPage();
      await victimPage.goto(link);
      await signIn(victimPage, victim.email);
      await victimPage.waitForLoadState('load');
      expect(victimPage.url().startsWith(api.issuer)).toBe(true);
      await expect(victimPage.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Request started elsewhere');
      // Nothing reached the attacker's redirect URI.
      await expect(rp.nextCallback(1_500)).rejects.toThrow(/no request to the RP callback/);
    },
    TIMEOUT,
  );
});
