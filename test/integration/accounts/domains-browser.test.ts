// The Domains page in headless Chromium: reached from the account page, a
// domain added in the form shows its TXT record; once the record is published
// on a real DNS server (on loopback, DNS_RESOLVERS) "Check now" verifies
// it through the DomainVerification flow. Refusals (a bad name, a duplicate,
// another user's domain, a form without its CSRF token) are shown with their
// status; Remove deletes the domain.
import type { Locator, Page } from 'playwright-core';
import type { RunningApi } from '../../../api/server.js';
import { addDomain } from '../../../lib/store/custom-domains.js';
import { createUser } from '../../../lib/store/users.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { useBrowser } from '../../support/browser.js';
import { startDnsServer, type TestDnsServer } from '../../support/dns-server.js';
import { eventually, startLocalhostApi, STACK_FRAME } from '../../support/harness.js';
import { testDatabase } from '../../support/database.js';

const PASSWORD = 'domains browser password';

let dns: TestDnsServer;
let api: RunningApi;
let issuer: string;
const browser = useBrowser();

beforeAll(async () => {
  dns = await startDnsServer();
  // A database of its own, so its own worker asks the loopback DNS server. The
  // first check runs at once, the next only after 10 minutes: "Check now" is what verifies.
  api = await startLocalhostApi({
    ...testDatabase('domains_browser').env,
    DNS_RESOLVERS: dns.address,
    DOMAIN_VERIFICATION_FIRST_INTERVAL_SECONDS: '600',
  });
  issuer = api.deps.config.issuer;
}, 120_000);
afterAll(async () => {
  await api?.stop();
  await dns?.close();
});

const uniqueDomain = (label: string) => `${label}-${Date.now().toString(36)}.example.com`;

/** Clicks `button` and returns the status of the form's POST (before any redirect). */
async function submit(page: Page, button: string, scope: Page | Locator = page): Promise<number> {
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname.startsWith('/account/domains')),
    scope.getByRole('button', { name: button }).click(),
  ]);
  await page.waitForLoadState();
  return response.status();
}

const signIn = (email: string) => browser.signedIn(issuer, email, PASSWORD);

describe('the Domains page in a browser', () => {
  it('adds a domain, shows its TXT record, verifies it with "Check now", refuses bad input in words, and removes it', async () => {
    const email = uniqueEmail('domains-browser');
    const user = await createUser(api.deps.store, { email, password: PASSWORD });
    const name = uniqueDomain('page');
    const page = await signIn(email);
    await page.getByRole('navigation', { name: 'Your account' }).getByRole('link', { name: 'Keys and domains' }).click();
    await page.getByRole('link', { name: 'Domains', exact: true }).click();
    await page.getByRole('heading', { name: 'Domains', level: 1 }).waitFor();
    await page.getByText('No domains yet.').waitFor();

    await page.getByLabel('Domain name').fill(name.toUpperCase());
    expect(await submit(page, 'Add domain')).toBe(303);
    expect(page.url()).toBe(`${issuer}/account/domains`);
    const item = page.getByRole('listitem').filter({ hasText: name });
    await item.getByText('Waiting for DNS').waitFor();
    const [stored] = await api.deps.store.domains.find({ userId: user._id }).toArray();
    expect(stored?.domain).toBe(name);
    expect(await item.getByLabel(`TXT record name for ${name}`).inputValue()).toBe(`_keyflow-challenge.${name}`);
    const value = await item.getByLabel(`TXT record value for ${name}`).inputValue();
    expect(value).toBe(`keyflow-verification=${stored!.token}`);

    // The first check found nothing; publish the record as shown and ask again.
    await eventually(() => expect(dns.queries).toContain(`_keyflow-challenge.${name}`), 15_000);
    dns.txt.set(`_keyflow-challenge.${name}`, [value]);
    expect(await submit(page, 'Check now', item)).toBe(303);
    // The check may find the record before the page is shown: either notice is right.
    await page
      .getByRole('status')
      .filter({ hasText: new RegExp(`^(Checking ${name.replace(/\./g, '\\.')} now|${name.replace(/\./g, '\\.')} is verified\\.)`) })
      .waitFor();
    await eventually(
      async () => {
        await page.reload();
        expect(await item.getByText('Verified').count()).toBe(1);
      },
      15_000,
      1_000,
    );
    expect(await item.getByText('Waiting for DNS').count()).toBe(0);
    expect(await item.getByRole('button', { name: 'Check now' }).count()).toBe(0);
    expect(await item.innerText()).toMatch(/Verified on \d{4}-\d\d-\d\d \d\d:\d\d UTC/);

    // A name that is not a host name: refused with the field named, what was typed kept (as text, not markup).
    const typed = '"><b>x</b>.example';
    await page.getByLabel('Domain name').fill(typed);
    expect(await submit(page, 'Add domain')).toBe(400);
    await page.getByRole('alert').filter({ hasText: 'domain: ' }).waitFor();
    expect(await page.getByLabel('Domain name').inputValue()).toBe(typed);
    expect(await page.locator('b', { hasText: 'x' }).count()).toBe(0);
    await page.getByLabel('Domain name').fill('192.0.2.1');
    expect(await submit(page, 'Add domain')).toBe(400);
    await page.getByRole('alert').filter({ hasText: 'domain: must be a host name, not an IP address' }).waitFor();

    // The same name again: 409 with the message.
    await page.getByLabel('Domain name').fill(name);
    expect(await submit(page, 'Add domain')).toBe(409);
    await page
      .getByRole('alert')
      .filter({ hasText: `you have already added ${name}` })
      .waitFor();
    expect(await page.locator('main li').count()).toBe(1);

    await item.locator('summary', { hasText: 'Remove' }).click();
    expect(await submit(page, 'Yes, remove the domain', item)).toBe(303);
    await page.getByText('No domains yet.').waitFor();
    expect(await api.deps.store.domains.countDocuments({ userId: user._id })).toBe(0);
  }, 90_000);

  it("refuses a form without its CSRF token and another user's domain (404), and never answers a 500", async () => {
    const email = uniqueEmail('domains-browser');
    const user = await createUser(api.deps.store, { email, password: PASSWORD });
    const other = await createUser(api.deps.store, { email: uniqueEmail('domains-other'), password: PASSWORD });
    const theirs = await addDomain(api.deps.store, other._id, uniqueDomain('theirs'));
    const page = await signIn(email);
    await page.goto(`${issuer}/account/domains`);
    const csrf = await page.locator('input[name="csrf"]').first().inputValue();

    // The browser's cookies without the page's token: refused, nothing added.
    const forged = await page.request.post(`${issuer}/account/domains`, { form: { domain: uniqueDomain('forged') }, maxRedirects: 0 });
    expect(forged.status()).toBe(400);
    expect(await forged.text()).toContain('Session expired');
    expect(await api.deps.store.domains.countDocuments({ userId: user._id })).toBe(0);

    for (const action of ['verify', 'delete']) {
      const r = await page.request.post(`${issuer}/account/domains/${theirs._id}/${action}`, { form: { csrf }, maxRedirects: 0 });
      expect([action, r.status()]).toEqual([action, 404]);
      expect(await r.text()).toContain('no such domain');
    }
    expect(await api.deps.store.domains.countDocuments({ _id: theirs._id })).toBe(1);

    // Odd form input is a refusal, never a fault.
    for (const form of [{ csrf }, { csrf, domain: '' }, { csrf, domain: 'x'.repeat(5000) }, { csrf, domain: 'exa mple.com' }] as Record<string, string>[]) {
      const r = await page.request.post(`${issuer}/account/domains`, { form, maxRedirects: 0 });
      expect([form.domain?.length, r.status()]).toEqual([form.domain?.length, 400]);
      expect(await r.text()).not.toMatch(STACK_FRAME);
    }
    const repeated = await page.request.post(`${issuer}/account/domains`, {
      data: `csrf=${encodeURIComponent(csrf)}&domain=a.example&domain=b.example`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      maxRedirects: 0,
    });
    expect(repeated.status()).toBe(400);
    const unknown = await page.request.post(`${issuer}/account/domains/not-an-id/verify`, { form: { csrf }, maxRedirects: 0 });
    expect(unknown.status()).toBe(404);
  }, 60_000);
});
