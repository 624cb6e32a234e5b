// The re-authentication round trip in headless Chromium: a sign-in older than
// REAUTH_MAX_AGE_SECONDS, a sensitive change on /account/security (a form, and
// the passkey button's JSON call), the sign-in page with the email fixed, and
// back to the page, where the change now goes through.
import type { Page } from 'playwright-core';
import { createUser } from '../../../lib/store/users.js';
import { addVirtualAuthenticator, useBrowser } from '../../support/browser.js';
import { useLocalhostApi } from '../../support/harness.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';

const PASSWORD = 'account re-auth browser password';

const browser = useBrowser();

const api = useLocalhostApi();
afterEach(async () => {
  await browser.closeAll();
});

async function signedInPage(): Promise<{ page: Page; email: string; userId: string }> {
  const email = uniqueEmail('reauth-browser');
  const user = await createUser(api.deps.store, { email, password: PASSWORD });
  const page = await browser.signedIn(api.issuer, email, PASSWORD);
  return { page, email, userId: user._id };
}

/** The sign-in is `minutes` old from now on. */
const age = (userId: string, minutes: number) =>
  api.deps.store.sessions.updateMany({ userId }, { $set: { authTime: new Date(Date.now() - minutes * 60_000) } });

async function signInAgain(page: Page, email: string): Promise<void> {
  await page.waitForURL(/\/login\?reauth=1&next=%2Faccount%2Fsecurity$/);
  await page.getByText('Sign in again to continue').waitFor();
  const emailField = page.getByLabel('Email');
  expect(await emailField.inputValue()).toBe(email);
  expect(await emailField.getAttribute('readonly')).not.toBeNull();
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`${api.issuer}/account/security`);
}

describe('re-authentication in a browser', () => {
  it('asks an old sign-in to sign in again before new backup codes, then returns to the page', async () => {
    const { page, email, userId } = await signedInPage();
    await age(userId, 20);
    await page.goto(`${api.issuer}/account/security`);
    // The page's sections never look bigger than its title.
    const size = async (tag: string) => Number.parseFloat(String(await page.evaluate(`getComputedStyle(document.querySelector('${tag}')).fontSize`)));
    expect(await size('h2')).toBeLessThan(await size('h1'));
    await page.getByRole('button', { name: 'Generate new backup codes' }).click();
    await signInAgain(page, email);
    await page.getByRole('button', { name: 'Generate new backup codes' }).click();
    await page.getByRole('heading', { name: 'Your backup codes' }).waitFor();
    expect(await page.getByRole('list', { name: 'Backup codes' }).locator('code').count()).toBe(10);
  });

  it('sends the passkey button of an old sign-in to sign in again, then adds the passkey', async () => {
    const { page, email, userId } = await signedInPage();
    await addVirtualAuthenticator(page);
    await age(userId, 20);
    await page.goto(`${api.issuer}/account/security`);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await signInAgain(page, email);
    await page.getByLabel('Passkey name').fill('Re-auth key');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('listitem').filter({ hasText: 'Re-auth key' }).waitFor();
    expect(await api.deps.store.passkeys.countDocuments({ userId })).toBe(1);
  });
});
