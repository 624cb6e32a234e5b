// The sessions page in headless Chromium: two browsers signed in as one user;
// the first sees both (itself marked), signs the other out, then signs out
// everywhere.
import type { RunningApi } from '../../../api/server.js';
import { createUser } from '../../../lib/store/users.js';
import { useBrowser } from '../../support/browser.js';
import { startLocalhostApi } from '../../support/harness.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';

const PASSWORD = 'sessions browser password';

let api: RunningApi;
let issuer: string;
const browser = useBrowser();

beforeAll(async () => {
  api = await startLocalhostApi();
  issuer = api.deps.config.issuer;
});
afterAll(async () => {
  await api?.stop();
});

const signedInPage = (email: string) => browser.signedIn(issuer, email, PASSWORD);

describe('the sessions page in a browser', () => {
  it('shows both browsers, signs the other one out, then signs out everywhere', async () => {
    const email = uniqueEmail('sessions-browser');
    await createUser(api.deps.store, { email, password: PASSWORD });
    const first = await signedInPage(email);
    const second = await signedInPage(email);

    await first.goto(`${issuer}/account`);
    await first.getByRole('link', { name: 'Where you are signed in' }).click();
    await first.getByRole('heading', { name: 'Your sessions' }).waitFor();
    const items = first.getByRole('listitem');
    expect(await items.count()).toBe(2);
    expect(await items.filter({ hasText: 'This browser' }).count()).toBe(1);
    await items.filter({ hasText: 'Another browser' }).getByRole('button', { name: 'Sign out' }).click();
    await first.getByText('That session is signed out.').waitFor();
    expect(await first.getByRole('listitem').count()).toBe(1);

    await second.goto(`${issuer}/account`);
    await second.waitForURL(`${issuer}/login`);

    await first.getByRole('button', { name: 'Sign out everywhere' }).click();
    await first.getByRole('heading', { name: 'You are signed out' }).waitFor();
    await first.goto(`${issuer}/account`);
    await first.waitForURL(`${issuer}/login`);
  });
});
