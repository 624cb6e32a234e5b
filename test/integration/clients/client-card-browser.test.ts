// The card of a dynamically registered client on the sign-in and consent pages
// of its authorization request, in headless Chromium: its logo (loaded, the
// page's CSP admitting exactly the logo's https origin), its name linking to
// client_uri, its privacy policy and terms of service links; everything
// escaped; a logo that is not https neither shown nor admitted.
import type { Page, Response as PageResponse } from 'playwright-core';
import { createClient } from '../../../lib/store/clients.js';
import { createPersonalAccessToken } from '../../../lib/store/personal-access-tokens.js';
import { useRpCallback, useBrowser } from '../../support/browser.js';
import { useLocalhostApi, type Json } from '../../support/harness.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { withPkce } from '../../../tools/fixtures/pkce.js';

const PASSWORD = 'client card password';
const TIMEOUT = 60_000;
// A 1×1 PNG, served for the logo by the browser's request interception (no https server needed).
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const LOGO_ORIGIN = 'https://logo.card-rp.example:8443';
const CSP_WITHOUT_LOGO = "img-src 'self' data:;";

const browser = useBrowser();
const rp = useRpCallback();

const api = useLocalhostApi();

/** A page in a fresh context whose requests to the logo's origin are answered with PNG; `logoHits` counts them. */
async function newPage(): Promise<{ page: Page; logoHits: string[] }> {
  const context = await browser.newContext();
  const logoHits: string[] = [];
  await context.route(`${LOGO_ORIGIN}/**`, (route) => {
    logoHits.push(route.request().url());
    return route.fulfill({ status: 200, contentType: 'image/png', body: PNG });
  });
  return { page: await context.newPage(), logoHits };
}

/** A client registered over RFC 7591 by a new user; its metadata as answered. */
async function registered(metadata: Record<string, unknown>): Promise<{ doc: Json; email: string }> {
  const { email, user } = await newUser(api.deps, { prefix: 'card', password: PASSWORD, name: 'Card User' });
  const { token } = await createPersonalAccessToken(api.deps.store, user._id, { name: 't', scope: ['apps:write'], expiresInDays: 1 });
  const res = await fetch(`${api.issuer}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ redirect_uris: [rp.redirectUri], scope: 'openid profile', ...metadata }),
  });
  expect(res.status).toBe(201);
  return { doc: (await res.json()) as Json, email };
}

const authorizeUrl = (clientId: string) =>
  `${api.issuer}/api/oauth/authorize?${new URLSearchParams(withPkce({ response_type: 'code', client_id: clientId, redirect_uri: rp.redirectUri, scope: 'openid profile', state: 'st' }))}`;

const cspOf = (response: PageResponse | null) => response?.headers()['content-security-policy'] ?? '';

/** The card's logo, names, links and escaping, and that the logo really loaded (which the CSP would have stopped). */
async function expectCard(page: Page, doc: Json, logoHits: string[]) {
  const card = page.locator('.client-card');
  const logo = card.locator('img.client-logo');
  expect(await logo.getAttribute('src')).toBe(doc.logo_uri);
  expect(await logo.getAttribute('alt')).toBe(doc.client_name);
  expect([await logo.getAttribute('width'), await logo.getAttribute('height')]).toEqual(['64', '64']);
  // Loaded: the CSP let the request go out (a blocked one never reaches the interception).
  await page.waitForFunction("(() => { const img = document.querySelector('img.client-logo'); return !!img && img.complete && img.naturalWidth === 1; })()");
  expect(logoHits.length).toBeGreaterThan(0);
  expect(await logo.evaluate((img) => [img.getBoundingClientRect().width, img.getBoundingClientRect().height])).toEqual([64, 64]);

  const name = card.getByRole('link', { name: doc.client_name, exact: true });
  expect(await name.getAttribute('href')).toBe(doc.client_uri);
  for (const [text, href] of [
    ['Privacy policy', doc.policy_uri],
    ['Terms of service', doc.tos_uri],
  ]) {
    const link = card.getByRole('link', { name: text, exact: true });
    expect(await link.getAttribute('href')).toBe(href);
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
  }
  // The name's markup is text, not elements.
  expect(await card.locator('i').count()).toBe(0);
}

describe('the client card on the sign-in and consent pages', () => {
  it(
    'shows the logo, name, client_uri, policy_uri and tos_uri of a registered client, with the logo origin admitted by the CSP alone',
    async () => {
      const { doc, email } = await registered({
        client_name: 'Card "RP" <i>x</i>',
        logo_uri: `${LOGO_ORIGIN}/logo.png?size=64&v="1"`,
        client_uri: 'https://card-rp.example/?from=keyflow&x=1',
        policy_uri: 'https://card-rp.example/privacy',
        tos_uri: 'https://card-rp.example/terms',
      });
      const { page, logoHits } = await newPage();

      const signIn = await page.goto(authorizeUrl(doc.client_id));
      expect(new URL(page.url()).pathname).toBe('/login');
      const signInCsp = cspOf(signIn);
      expect(signInCsp).toContain(`img-src 'self' data: ${LOGO_ORIGIN};`);
      expect(signInCsp).not.toContain('*');
      await expectCard(page, doc, logoHits);
      await expect(page.locator('.client-name').textContent()).resolves.toBe(`to continue to ${doc.client_name}`);

      const consentResponse = page.waitForResponse((r) => new URL(r.url()).pathname === '/consent' && r.request().method() === 'GET');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      const consentCsp = cspOf(await consentResponse);
      expect(consentCsp).toContain(`img-src 'self' data: ${LOGO_ORIGIN};`);
      await page.getByRole('heading', { name: `Allow ${doc.client_name}?` }).waitFor();
      await expectCard(page, doc, logoHits);

      await page.getByRole('button', { name: 'Allow', exact: true }).click();
      expect((await rp.nextCallback()).get('code')).toEqual(expect.any(String));
    },
    TIMEOUT,
  );

  it(
    'shows no logo that is not https (stored before the rule), and admits no other origin; no links that were not given',
    async () => {
      const { email, user } = await newUser(api.deps, { prefix: 'card', password: PASSWORD, name: 'Card User' });
      const { client } = await createClient(
        api.deps.store,
        { name: 'Plain RP', redirectUris: [{ type: 'equals', value: rp.redirectUri }], ownerUserId: user._id, idTokenSignedResponseAlg: 'RS256' },
        { logoUri: 'http://card-rp.example/logo.png', clientUri: 'javascript:alert(1)' },
      );
      const { page } = await newPage();
      const signIn = await page.goto(authorizeUrl(client._id));
      expect(cspOf(signIn)).toContain(CSP_WITHOUT_LOGO);
      const card = page.locator('.client-card');
      expect(await card.locator('img').count()).toBe(0);
      expect(await card.locator('a').count()).toBe(0);
      expect(await card.locator('strong').textContent()).toBe('Plain RP');

      const consentResponse = page.waitForResponse((r) => new URL(r.url()).pathname === '/consent' && r.request().method() === 'GET');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      expect(cspOf(await consentResponse)).toContain(CSP_WITHOUT_LOGO);
      await page.getByRole('heading', { name: 'Allow Plain RP?' }).waitFor();
      expect(await page.locator('.client-card img, .client-card a').count()).toBe(0);
    },
    TIMEOUT,
  );

  it('shows no card on a sign-in link to a request started in another browser, nor on a sign-in of its own', async () => {
    const { doc } = await registered({ client_name: 'Elsewhere RP', logo_uri: `${LOGO_ORIGIN}/logo.png` });
    const starter = new HttpUser(api.issuer);
    const waiting = await starter.get(authorizeUrl(doc.client_id));
    const requestId = new URL(waiting.url).searchParams.get('request')!;
    const mine = await waiting.res.text();
    expect(mine).toContain('class="client-card"');
    expect(waiting.res.headers.get('content-security-policy')).toContain(LOGO_ORIGIN);

    const other = await new HttpUser(api.issuer).get(`/login?request=${encodeURIComponent(requestId)}`);
    expect(other.res.status).toBe(200);
    expect(await other.res.text()).not.toContain('client-card');
    expect(other.res.headers.get('content-security-policy')).toContain(CSP_WITHOUT_LOGO);
    const plain = await new HttpUser(api.issuer).get('/login');
    expect(await plain.res.text()).not.toContain('client-card');
  });
});
