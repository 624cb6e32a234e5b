// "Apps you allowed" in a browser, as a user reaches it: from the account
// page, at 375 px; each app the user allowed with what it may see; "Remove
// access" leaves the list without it (the HTTP path, its tokens and its audit
// record: audit-authorization.test.ts). Axe-clean, nothing wider than the screen.
import type { Page } from 'playwright-core';
import { recordConsent } from '../../../lib/store/consents.js';
import { newRp } from '../../../tools/fixtures/clients.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { axeViolations } from '../../support/axe.js';
import { signInAtAccount, useBrowser, confirmAction } from '../../support/browser.js';
import { testDatabase } from '../../support/database.js';
import { useLocalhostApi } from '../../support/harness.js';

const PASSWORD = 'connected apps password';
const CALLBACK = [{ value: 'https://connected.example/cb' }];
const browser = useBrowser();
const api = useLocalhostApi(testDatabase('connected_apps_browser').env);

async function expectUsable(page: Page): Promise<void> {
  expect(await axeViolations(page)).toEqual([]);
  expect(await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBeLessThanOrEqual(0);
}

it('lists the apps a user allowed with what each may see, and removes one at 375 px', async () => {
  const { email, user } = await newUser(api.deps, { password: PASSWORD, prefix: 'connected' });
  const [calendar, notes] = await Promise.all([
    newRp(api.deps, { name: 'Calendar of a very long name that must wrap', redirectUris: CALLBACK }),
    newRp(api.deps, { name: 'Notes', redirectUris: CALLBACK }),
  ]);
  await recordConsent(api.deps.store, user._id, calendar.id, ['openid', 'profile']);
  await recordConsent(api.deps.store, user._id, notes.id, ['openid', 'email']);

  const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
  await signInAtAccount(page, api.issuer, email, PASSWORD);
  await page.getByRole('navigation', { name: 'Your account' }).getByRole('link', { name: 'Apps', exact: true }).click();
  await page.waitForURL(`${api.issuer}/account/connected-apps`);
  const apps = page.locator('ul.connected-apps > li');
  expect(await apps.locator(':scope > strong').allTextContents()).toEqual(['Calendar of a very long name that must wrap', 'Notes']);
  expect(await apps.nth(1).textContent()).toMatch(/email/i);
  await expectUsable(page);

  await confirmAction(apps.nth(1), 'Remove access', 'Yes, remove access of Notes');
  expect(await page.getByRole('status').textContent()).toContain("That app's access is removed.");
  expect(await apps.locator(':scope > strong').allTextContents()).toEqual(['Calendar of a very long name that must wrap']);
  await expectUsable(page);
});
