// Linking by email in headless Chromium against a real upstream (oidc-provider
// on 127.0.0.1), on a database of its own with open registration: an account
// someone signed up with an address they never proved (what anyone can do
// with open registration) is not reached through an upstream that vouches for
// that address; the page says no more than for any other account with the
// email, and its way forward (sign in another way, then link from the account
// page) works. An account whose email is verified still links as before.
import type { Page } from 'playwright-core';
import { socialAccountsOf } from '../../../lib/store/oauth-sources.js';
import { setSiteSetting } from '../../../lib/store/settings.js';
import { findUserByEmail } from '../../../lib/store/users.js';
import { expectSignedOut, useBrowser } from '../../support/browser.js';
import { useLocalhostApi } from '../../support/harness.js';
import { newSource, UPSTREAM_CLIENT_ID, UPSTREAM_CLIENT_SECRET } from '../../support/oauth-source.js';
import { forgetUpstream, signInUpstream, startUpstreamIdp, type UpstreamIdp, upstreamPages } from '../../support/upstream-idp.js';
import { newUser, uniqueEmail } from '../../../tools/fixtures/users.js';
import { testDatabase } from '../../support/database.js';

const database = testDatabase('social_email');
const PASSWORD = 'an attacker chose this passphrase 7310';
const browser = useBrowser();
let upstream: UpstreamIdp;
const run = Date.now().toString(36);
const slugs = Array.from({ length: 3 }, (_, i) => `mail-${run}-${i}`);
let nextSlug = 0;

const api = useLocalhostApi(database.env);
beforeAll(async () => {
  await setSiteSetting(api.deps.store, 'registration', 'open');
  upstream = await startUpstreamIdp([
    { clientId: UPSTREAM_CLIENT_ID, clientSecret: UPSTREAM_CLIENT_SECRET, redirectUris: slugs.map((slug) => `${api.issuer}/login/source/${slug}/callback`) },
  ]);
}, 120_000);
afterAll(async () => {
  await upstream?.close();
});

const newPage = browser.newPage;

/** A source that links by verified email and would also create accounts. */
const source = (opts: Parameters<typeof newSource>[2] = {}) =>
  newSource(api, upstream.issuer, { linkByVerifiedEmail: true, allowSignUp: true, ...opts, slug: slugs[nextSlug++]! });

/** Open sign-up at /signup, as anyone may: the address is whatever was typed. */
async function signUp(page: Page, email: string): Promise<void> {
  await page.goto(`${api.issuer}/signup`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Name', { exact: true }).fill('Somebody');
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Password again').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(`${api.issuer}/account`);
}

describe('Linking an upstream sign-in by email', () => {
  it('does not sign in to an account whose email was never verified; the page sends the user to link from their account', async () => {
    const s = await source();
    const email = uniqueEmail('victim');
    // Someone signs up with the victim's address and a password of their choosing.
    await signUp(await newPage(), email);
    const squatted = await findUserByEmail(api.deps.store, email);
    expect(squatted?.emailVerified).toBe(false);

    // The victim's upstream account has that address, verified upstream.
    const sub = `victim-${Date.now()}`;
    upstream.accounts.set(sub, { email, email_verified: true });
    const page = await newPage();
    await signInUpstream(page, api.issuer, s.name, sub);
    // Back from the upstream: the callback's refusal page, not the account page of whoever signed up.
    await page.waitForURL((url) => url.origin === api.issuer);
    expect(new URL(page.url()).pathname).toBe(`/login/source/${s.slug}/callback`);
    const alert = page.getByRole('alert');
    const refusal = await alert.textContent();
    expect(refusal).toBe(`An account with this email already exists. Sign in to it another way, then link ${s.name} from your account page (Sign-in methods).`);
    const forward = page.getByRole('link', { name: 'Sign in another way' });
    expect(await forward.getAttribute('href')).toBe('/login?next=%2Faccount%2Fsocial');
    await expectSignedOut(page, api.issuer);
    expect(await socialAccountsOf(api.deps.store, squatted!._id)).toHaveLength(0);

    // Nothing more is said than for a verified account the source may not link to.
    const { email: otherEmail } = await newUser(api.deps, { prefix: 'verified-no-opt-in', password: PASSWORD });
    const optedOut = await source({ linkByVerifiedEmail: false });
    const otherSub = `opted-out-${Date.now()}`;
    upstream.accounts.set(otherSub, { email: otherEmail, email_verified: true });
    await signInUpstream(page, api.issuer, optedOut.name, otherSub);
    await page.getByRole('alert').waitFor();
    expect((await page.getByRole('alert').textContent())?.replace(optedOut.name, s.name)).toBe(refusal);
    await expectSignedOut(page, api.issuer);

    // The way forward, for whoever holds the account's password: sign in, then link from Sign-in methods.
    await signInUpstream(page, api.issuer, s.name, sub);
    await page.getByRole('link', { name: 'Sign in another way' }).click();
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${api.issuer}/account/social`);
    await forgetUpstream(page);
    await page.getByRole('button', { name: `Link ${s.name}` }).click();
    await upstreamPages(page, sub);
    await page.getByText('The account is linked.').waitFor();
    expect(await socialAccountsOf(api.deps.store, squatted!._id)).toEqual([expect.objectContaining({ sourceId: s._id, providerUserId: sub })]);
  });

  it('still links to an account whose email is verified', async () => {
    const s = await source();
    const { email, user } = await newUser(api.deps, { prefix: 'verified-local', password: PASSWORD });
    expect(user.emailVerified).toBe(true);
    const sub = `verified-${Date.now()}`;
    upstream.accounts.set(sub, { email, email_verified: true });
    const page = await newPage();
    await signInUpstream(page, api.issuer, s.name, sub);
    await page.waitForURL(`${api.issuer}/account`);
    expect(await socialAccountsOf(api.deps.store, user._id)).toEqual([expect.objectContaining({ sourceId: s._id, providerUserId: sub })]);
  });
});
