// /signup in headless Chromium with an invitation link: the fields found by
// their labels, the form filled and sent with the keyboard only, errors shown
// (and the entries kept), then the account created, signed in, on /account.
// The login page's "Create an account" link leads there with the invitation.
import type { BrowserContext } from 'playwright-core';
import { createInvite } from '../../../lib/admin/invite-changes.js';
import { OPERATOR } from '../../../cli/events.js';
import { setSiteSetting } from '../../../lib/store/settings.js';
import { findUserByEmail } from '../../../lib/store/users.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { useBrowser } from '../../support/browser.js';
import { useLocalhostApi } from '../../support/harness.js';

const PASSWORD = 'a browser signup passphrase 5521';
const browser = useBrowser();
let context: BrowserContext;

const api = useLocalhostApi({}, { beforeStop: (running) => running.deps.events.idle() });
beforeAll(async () => {
  await setSiteSetting(api.deps.store, 'registration', 'invite');
  context = await browser.newContext();
});

describe('the sign-up page in a browser', () => {
  it('with an invitation link: keyboard only, errors shown, then signed in on /account', async () => {
    const { link } = await createInvite({ store: api.deps.store, issuer: api.issuer, events: api.deps.events }, { role: 'user' }, OPERATOR);
    const page = await context.newPage();
    const focused = () => page.locator(':focus').getAttribute('id');
    // From the login page's link, which carries the invitation on.
    await page.goto(`${api.issuer}/login?invite=${new URL(link).searchParams.get('invite')}`);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    expect(page.url()).toBe(link);

    const email = uniqueEmail('signup-browser');
    await page.getByLabel('Email').focus();
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('username');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Browser Person');
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('confirm');
    await page.keyboard.type('a different passphrase 0000');
    await page.keyboard.press('Enter');

    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('The two passwords are not the same.');
    expect(await page.getByLabel('Email').inputValue()).toBe(email);
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Browser Person');

    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Password again').focus();
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').textContent()).toBe('Create account');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${api.issuer}/account`);
    expect(await findUserByEmail(api.deps.store, email)).toMatchObject({ name: 'Browser Person', role: 'user' });

    // The link is used now: a second browser is told so in plain words.
    const other = await browser.newContext();
    const late = await other.newPage();
    await late.goto(link);
    expect(await late.getByRole('alert').textContent()).toBe('This invitation has already been used.');
    await other.close();
  });
});
