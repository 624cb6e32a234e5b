// The re-authentication round trip in headless Chromium: a sign-in older than
// REAUTH_MAX_AGE_SECONDS, a sensitive change on /account/security (a form, and
// the passkey button's JSON call), the sign-in page with the email fixed, and
// back to the page, where the change now goes through.
import { generate } from 'otplib';
import type { Page } from 'playwright-core';
import { createUser } from '../../../lib/store/users.js';
import { enrollFactors } from '../../../tools/fixtures/factors.js';
import { addVirtualAuthenticator, useBrowser } from '../../support/browser.js';
import { useLocalhostApi } from '../../support/harness.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';

const PASSWORD = 'account re-auth browser password';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

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

/** A user with an authenticator app (backup codes are offered only with a second factor), signed in with both. */
async function signedInWithTotp(): Promise<{ page: Page; email: string; userId: string }> {
  const email = uniqueEmail('reauth-browser-totp');
  const user = await createUser(api.deps.store, { email, password: PASSWORD });
  await enrollFactors(api.deps.store, api.deps.kek, user._id, TOTP_SECRET);
  const page = await browser.newPage();
  await page.goto(`${api.issuer}/login`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await enterCode(page, 0);
  await page.waitForURL(`${api.issuer}/account`);
  return { page, email, userId: user._id };
}

/** Answers the second-factor step with the code of `step` time steps from now (each code works once). */
async function enterCode(page: Page, step: number): Promise<void> {
  await page.waitForURL(/\/login\/second-factor/);
  await page.getByLabel('Authentication code').fill(await generate({ secret: TOTP_SECRET, epoch: Math.floor(Date.now() / 1000) + 30 * step }));
  await page.getByRole('button', { name: 'Verify' }).click();
}

/** The sign-in is `minutes` old from now on. */
const age = (userId: string, minutes: number) =>
  api.deps.store.sessions.updateMany({ userId }, { $set: { authTime: new Date(Date.now() - minutes * 60_000) } });

async function signInAgain(page: Page, email: string, withCode = false): Promise<void> {
  await page.waitForURL(/\/login\?reauth=1&next=%2Faccount%2Fsecurity$/);
  await page.getByText('Sign in again to continue').waitFor();
  const emailField = page.getByLabel('Email');
  expect(await emailField.inputValue()).toBe(email);
  expect(await emailField.getAttribute('readonly')).not.toBeNull();
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  if (withCode) await enterCode(page, 1);
  await page.waitForURL(`${api.issuer}/account/security`);
}

/** Opens the confirmation of new backup codes and confirms. */
async function generateCodes(page: Page): Promise<void> {
  await page.getByText('Generate new backup codes', { exact: true }).click();
  await page.getByRole('button', { name: 'Yes, generate new codes' }).click();
}

describe('re-authentication in a browser', () => {
  it('asks an old sign-in to sign in again before new backup codes, then returns to the page', async () => {
    const { page, email, userId } = await signedInWithTotp();
    await age(userId, 20);
    await page.goto(`${api.issuer}/account/security`);
    // The page's sections never look bigger than its title.
    const size = async (tag: string) => Number.parseFloat(String(await page.evaluate(`getComputedStyle(document.querySelector('${tag}')).fontSize`)));
    expect(await size('h2')).toBeLessThan(await size('h1'));
    await generateCodes(page);
    await signInAgain(page, email, true);
    await generateCodes(page);
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
