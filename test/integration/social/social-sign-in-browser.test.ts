// "Sign in with …" in headless Chromium against a real upstream (oidc-provider
// on 127.0.0.1): sign-up, linking by verified email only when opted in, the
// second factor after the upstream, the account page's unlink and its
// last-way refusal, and refusals with no sign-in for a wrong state, a
// replayed callback and an answer from another issuer.
import { generate } from 'otplib';
import { socialAccountsOf } from '../../../lib/store/oauth-sources.js';
import { findUserByEmail } from '../../../lib/store/users.js';
import { createPersonalAccessToken } from '../../../lib/store/personal-access-tokens.js';
import { expectSignedOut, useBrowser, confirmAction } from '../../support/browser.js';
import { useLocalhostApi, type Json } from '../../support/harness.js';
import { newSource, UPSTREAM_CLIENT_ID, UPSTREAM_CLIENT_SECRET } from '../../support/oauth-source.js';
import { forgetUpstream, signInUpstream, startUpstreamIdp, type UpstreamIdp, upstreamPages } from '../../support/upstream-idp.js';
import { newUser, uniqueEmail } from '../../../tools/fixtures/users.js';

const PASSWORD = 'social browser password';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const browser = useBrowser();
let upstream: UpstreamIdp;
let elsewhere: UpstreamIdp;
const run = Date.now().toString(36);
const slugs = Array.from({ length: 6 }, (_, i) => `up-${run}-${i}`);
let nextSlug = 0;

const api = useLocalhostApi();
beforeAll(async () => {
  // The upstreams' client knows every callback this file's sources will use.
  const client = {
    clientId: UPSTREAM_CLIENT_ID,
    clientSecret: UPSTREAM_CLIENT_SECRET,
    redirectUris: slugs.map((slug) => `${api.issuer}/login/source/${slug}/callback`),
  };
  upstream = await startUpstreamIdp([client]);
  elsewhere = await startUpstreamIdp([client]);
});
afterAll(async () => {
  await upstream?.close();
  await elsewhere?.close();
});

const newPage = browser.newPage;

/** A source on `upstream` whose callback both upstreams accept. */
const source = (opts: Parameters<typeof newSource>[2] = {}) => newSource(api, upstream.issuer, { ...opts, slug: slugs[nextSlug++]! });

const apiGet = async (userId: string): Promise<Json> => {
  const { token } = await createPersonalAccessToken(api.deps.store, userId, { name: 't', scope: ['social:read'], expiresInDays: 1 });
  const res = await fetch(`${api.issuer}/api/oauth/me/social_accounts`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return res.json();
};

describe('Sign in with an upstream provider', () => {
  it('creates an account on first sign-in when the source allows sign-up; its only link cannot be unlinked', async () => {
    const s = await source({ allowSignUp: true });
    const sub = `new-${Date.now()}`;
    const email = uniqueEmail('social-signup');
    upstream.accounts.set(sub, { email, email_verified: true, name: 'Social Person' });
    const page = await newPage();
    await signInUpstream(page, api.issuer, s.name, sub);
    await page.waitForURL(`${api.issuer}/account`);
    const user = await findUserByEmail(api.deps.store, email);
    expect(user?.name).toBe('Social Person');
    const listed = await apiGet(user!._id);
    expect(listed.social_accounts).toEqual([{ id: expect.any(String), provider: s.slug, provider_user_id: sub, linked_at: expect.any(String) }]);

    await page.goto(`${api.issuer}/account/social`);
    await confirmAction(page, `Unlink ${s.name}`, `Yes, unlink ${s.name}`);
    await page.getByText('only way to sign in').waitFor();
    expect(await socialAccountsOf(api.deps.store, user!._id)).toHaveLength(1);

    // Signed out (Keyflow's "Sign out"), the same upstream account signs in to the same Keyflow account.
    await page.goto(`${api.issuer}/account`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${api.issuer}/logout`);
    await expectSignedOut(page, api.issuer);
    await page.context().clearCookies(); // and the upstream's session: its sign-in form again
    await signInUpstream(page, api.issuer, s.name, sub);
    await page.waitForURL(`${api.issuer}/account`);
    expect(await socialAccountsOf(api.deps.store, user!._id)).toHaveLength(1);
  });

  it('links by verified email only when the source opts in; then the account can be unlinked', async () => {
    const { email, user } = await newUser(api.deps, { prefix: 'social-link', password: PASSWORD });
    const optedOut = await source({ allowSignUp: true });
    const optedIn = await source({ linkByVerifiedEmail: true });
    const verified = `verified-${Date.now()}`;
    const unverified = `unverified-${Date.now()}`;
    upstream.accounts.set(verified, { email, email_verified: true });
    upstream.accounts.set(unverified, { email, email_verified: false });

    const page = await newPage();
    await signInUpstream(page, api.issuer, optedOut.name, verified);
    await page.getByText('An account with this email already exists').waitFor();
    await expectSignedOut(page, api.issuer);

    await signInUpstream(page, api.issuer, optedIn.name, unverified);
    await page.getByText('An account with this email already exists').waitFor();
    await expectSignedOut(page, api.issuer);
    expect(await socialAccountsOf(api.deps.store, user._id)).toHaveLength(0);

    await signInUpstream(page, api.issuer, optedIn.name, verified);
    await page.waitForURL(`${api.issuer}/account`);
    expect((await apiGet(user._id)).social_accounts).toEqual([expect.objectContaining({ provider: optedIn.slug, provider_user_id: verified })]);

    await page.goto(`${api.issuer}/account/social`);
    await confirmAction(page, `Unlink ${optedIn.name}`, `Yes, unlink ${optedIn.name}`);
    await page.getByText('The account is unlinked.').waitFor();
    expect((await apiGet(user._id)).social_accounts).toEqual([]);
  });

  it('links from the account page, then asks a user with TOTP for the code after the upstream', async () => {
    const { email, user, backupCodes } = await newUser(api.deps, { prefix: 'social-totp', password: PASSWORD, totpSecret: TOTP_SECRET });
    const s = await source();
    const sub = `totp-${Date.now()}`;
    upstream.accounts.set(sub, { email: uniqueEmail('other-address'), email_verified: true });
    const page = await newPage();
    await page.goto(`${api.issuer}/login`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByLabel('Authentication code').fill(await generate({ secret: TOTP_SECRET }));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${api.issuer}/account`);
    await page.goto(`${api.issuer}/account/social`);
    await forgetUpstream(page);
    await page.getByRole('button', { name: `Link ${s.name}` }).click();
    await upstreamPages(page, sub);
    await page.getByText('The account is linked.').waitFor();
    expect(await socialAccountsOf(api.deps.store, user._id)).toHaveLength(1);

    await page.context().clearCookies();
    await signInUpstream(page, api.issuer, s.name, sub);
    await page.waitForURL(/\/login\/second-factor/);
    await expectSignedOut(page, api.issuer);
    await page.context().clearCookies(); // and the upstream's session: its sign-in form again
    await signInUpstream(page, api.issuer, s.name, sub);
    // The TOTP code of this window was used above: a backup code is the second factor now.
    await page.getByLabel('Authentication code').fill(backupCodes[0]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${api.issuer}/account`);
  });

  it('refuses a wrong state, a replayed callback and an answer from another issuer, without signing in', async () => {
    const s = await source({ allowSignUp: true });
    const sub = `replay-${Date.now()}`;
    upstream.accounts.set(sub, { email: uniqueEmail('social-replay'), email_verified: true });
    const page = await newPage();

    const wrongState = await page.goto(`${api.issuer}/login/source/${s.slug}/callback?code=abc&state=wrong&iss=${encodeURIComponent(upstream.issuer)}`);
    expect(wrongState?.status()).toBe(400);
    await expectSignedOut(page, api.issuer);

    let callback = '';
    page.on('request', (r) => {
      if (r.url().startsWith(`${api.issuer}/login/source/${s.slug}/callback`)) callback = r.url();
    });
    await signInUpstream(page, api.issuer, s.name, sub);
    await page.waitForURL(`${api.issuer}/account`);
    await page.context().clearCookies({ name: 'kf_session' });
    const replay = await page.goto(callback);
    expect(replay?.status()).toBe(400);
    await expectSignedOut(page, api.issuer);

    // The authorization request goes to another provider holding the same client: its answer names another issuer.
    // (Keyflow's redirect is rewritten: Playwright routes a navigation's first request, not the ones it is redirected to.)
    await page.route(`${api.issuer}/login/source/${s.slug}`, async (route) => {
      const response = await route.fetch({ maxRedirects: 0 });
      const location = response.headers()['location']!.replace(upstream.issuer, elsewhere.issuer);
      await route.fulfill({ response, headers: { ...response.headers(), location } });
    });
    await forgetUpstream(page);
    await page.goto(`${api.issuer}/login`);
    await page.getByRole('link', { name: `Sign in with ${s.name}` }).click();
    await page.waitForURL(`${elsewhere.issuer}/**`);
    await upstreamPages(page, sub);
    await page.getByText('could not be verified').waitFor();
    await expectSignedOut(page, api.issuer);
  });
});
