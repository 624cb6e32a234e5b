// Ways to sign in, in headless Chromium: an account created by "Sign in with …"
// (no password) sets a password on /account/password without a current one,
// then signs in with it at /login; a stale sign-in (older than
// REAUTH_MAX_AGE_SECONDS) is sent to sign in again and sets nothing; an
// account with a password still has to give the current one.
import type { Page } from 'playwright-core';
import { createPasswordlessUser, NO_PASSWORD } from '../../../lib/store/passwordless-users.js';
import { createSession, findSession } from '../../../lib/store/sessions.js';
import { createUser, findUserById } from '../../../lib/store/users.js';
import { useBrowser } from '../../support/browser.js';
import { useLocalhostApi } from '../../support/harness.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';

const PASSWORD = 'sign-in ways browser password';
const NEW_PASSWORD = 'lantern orchard velvet basin';
const REAUTH_SECONDS = 60;

const browser = useBrowser();

const api = useLocalhostApi({ REAUTH_MAX_AGE_SECONDS: String(REAUTH_SECONDS) });
afterEach(async () => {
  await browser.closeAll();
});

const newPage = browser.newPage;

/** A passwordless account signed in as after "Sign in with …" (amr fed), its sign-in `ageSeconds` old. */
async function passwordlessPage(ageSeconds = 0): Promise<{ page: Page; email: string; userId: string }> {
  const email = uniqueEmail('ways-browser');
  const user = await createPasswordlessUser(api.deps.store, { email, emailVerified: true, name: null, username: null });
  const { token, session } = await createSession(api.deps.store, { userId: user!._id, amr: ['fed'], acr: 'pwd' });
  await api.deps.store.sessions.updateOne({ _id: session._id }, { $set: { authTime: new Date(Date.now() - ageSeconds * 1000) } });
  const page = await newPage();
  await page.context().addCookies([{ name: 'kf_session', value: token, url: api.issuer }]);
  return { page, email, userId: user!._id };
}

async function fillNewPassword(page: Page, password: string): Promise<void> {
  await page.getByLabel('New password', { exact: true }).fill(password);
  await page.getByLabel('New password again').fill(password);
}

describe('setting a password on an account created by "Sign in with …"', () => {
  it('sets a password without a current one, signs out the other sessions, and signs in with it at /login', async () => {
    const { page, email, userId } = await passwordlessPage();
    const other = await createSession(api.deps.store, { userId, amr: ['fed'], acr: 'pwd' });
    await page.goto(`${api.issuer}/account`);
    await page.getByRole('navigation', { name: 'Your account' }).getByRole('link', { name: 'Security' }).click();
    await page.getByRole('link', { name: 'Set a password' }).click();
    await page.getByRole('heading', { name: 'Set a password' }).waitFor();
    expect(await page.getByLabel('Current password').count()).toBe(0);

    await fillNewPassword(page, 'short');
    await page.getByLabel('New password', { exact: true }).evaluate((el) => el.removeAttribute('minlength'));
    await page.getByLabel('New password again').evaluate((el) => el.removeAttribute('minlength'));
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('alert').filter({ hasText: 'The new password' }).waitFor();

    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('New password again').fill(`${NEW_PASSWORD} not the same`);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('The two new passwords are not the same.').waitFor();

    await fillNewPassword(page, NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('heading', { name: 'Password set' }).waitFor();
    await page.getByText('Your other session was signed out.').waitFor();
    expect(await findSession(api.deps.store, other.token)).toBeNull();

    await page.goto(`${api.issuer}/account/security`);
    await page.getByRole('link', { name: 'Change your password' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.goto(`${api.issuer}/login`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${api.issuer}/account`);
  });

  it('sends a sign-in older than the re-authentication window to sign in again, and sets nothing', async () => {
    const { page, userId } = await passwordlessPage(REAUTH_SECONDS * 3);
    await page.goto(`${api.issuer}/account/password`);
    await fillNewPassword(page, NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.waitForURL(/\/login\?reauth=1&next=%2Faccount%2Fpassword$/);
    await page.getByText('Sign in again to continue').waitFor();
    expect((await findUserById(api.deps.store, userId))!.passwordHash).toBe(NO_PASSWORD);
  });
});

describe('changing the password of an account with one', () => {
  it('still asks for the current password: a form without it is refused and changes nothing', async () => {
    const email = uniqueEmail('ways-browser-pwd');
    const user = await createUser(api.deps.store, { email, password: PASSWORD });
    const page = await newPage();
    await page.goto(`${api.issuer}/login`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${api.issuer}/account`);

    await page.getByRole('navigation', { name: 'Your account' }).getByRole('link', { name: 'Security' }).click();
    await page.getByRole('link', { name: 'Change your password' }).click();
    await page.getByRole('heading', { name: 'Change your password' }).waitFor();
    const current = page.getByLabel('Current password');
    expect(await current.count()).toBe(1);
    await current.evaluate((el) => el.remove());
    await fillNewPassword(page, NEW_PASSWORD);
    const answer = page.waitForResponse((r) => r.url() === `${api.issuer}/account/password` && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Change password' }).click();
    expect((await answer).status()).toBe(400);
    await page.getByText('Fill in every field.').waitFor();
    expect((await findUserById(api.deps.store, user._id))!.passwordHash).toBe(user.passwordHash);
  });
});
