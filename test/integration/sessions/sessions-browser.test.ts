// The sessions page in headless Chromium: two browsers signed in as one user;
// the first sees both (itself marked), signs the other out, then signs out
// everywhere.
import { createUser } from '../../../lib/store/users.js';
import { useBrowser, confirmAction } from '../../support/browser.js';
import { useLocalhostApi } from '../../support/harness.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';

const PASSWORD = 'sessions browser password';

const browser = useBrowser();

const api = useLocalhostApi();

const signedInPage = (email: string) => browser.signedIn(api.issuer, email, PASSWORD);

describe('the sessions page in a browser', () => {
  it('shows both browsers, signs the other one out, then signs out everywhere', async () => {
    const email = uniqueEmail('sessions-browser');
    await createUser(api.deps.store, { email, password: PASSWORD });
    const first = await signedInPage(email);
    const second = await signedInPage(email);

    await first.goto(`${api.issuer}/account`);
    await first.getByRole('navigation', { name: 'Your account' }).getByRole('link', { name: 'Sessions' }).click();
    await first.getByRole('heading', { name: 'Your sessions' }).waitFor();
    const items = first.locator('ul.sessions > li');
    expect(await items.count()).toBe(2);
    expect(await items.filter({ hasText: 'This browser' }).count()).toBe(1);
    await confirmAction(items.filter({ hasText: 'Another browser' }), 'Sign out', 'Yes, sign it out');
    await first.getByText('That session is signed out.').waitFor();
    expect(await first.locator('ul.sessions > li').count()).toBe(1);

    await second.goto(`${api.issuer}/account`);
    await second.waitForURL(`${api.issuer}/login`);

    await confirmAction(first, 'Sign out everywhere', 'Yes, sign out everywhere');
    await first.getByRole('heading', { name: 'You are signed out' }).waitFor();
    await first.goto(`${api.issuer}/account`);
    await first.waitForURL(`${api.issuer}/login`);
  });
});
