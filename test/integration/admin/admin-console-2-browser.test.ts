// The admin console's Users, Apps, Invites and Settings pages in headless
// Chromium: what a non-admin gets, forged forms, searching and changing
// accounts (a disabled user's session stops working, the last admin is kept),
// marking and deactivating apps (the token endpoint then refuses the client),
// an invitation link shown once and refused once revoked, the settings form
// (a secret never in a page), and a form used by keyboard alone.
import type { Page } from 'playwright-core';
import { auditRecords } from '../../support/audit.js';
import { findClient } from '../../../lib/store/clients.js';
import { findInvite } from '../../../lib/store/invites.js';
import { getSiteSettings, setSiteSetting, siteSecret } from '../../../lib/store/settings.js';
import { findUserByEmail, findUserById } from '../../../lib/store/users.js';
import { useBrowser, confirmAction } from '../../support/browser.js';
import { useLocalhostApi } from '../../support/harness.js';
import { skipTime } from '../../support/clock.js';
import { newRp, type FixtureRp } from '../../../tools/fixtures/clients.js';
import { newUser, uniqueEmail, type FixtureUser } from '../../../tools/fixtures/users.js';
import { testDatabase } from '../../support/database.js';

const PASSWORD = 'admin console two password';
/** The api's client lookups are cached this long (cachedClientLookup), plus a margin. */
const CLIENT_CACHE_MS = 2100;

const browser = useBrowser();

const api = useLocalhostApi(testDatabase('admin_console_2_browser').env);
afterEach(async () => {
  await browser.closeAll();
});

const user = (prefix: string, admin = false) => newUser(api.deps, { password: PASSWORD, prefix, admin });

const newPage = browser.newPage;

const signedIn = (u: FixtureUser) => browser.signedIn(api.issuer, u.email, PASSWORD);

const app = (name: string) =>
  newRp(api.deps, { name, redirectUris: [{ type: 'equals', value: 'https://rp.example.com/cb' }], allowedScopes: ['openid'], isVerified: false });

/** The token endpoint's answer to the app's credentials with a made-up code. */
async function tokenError(rp: FixtureRp): Promise<{ status: number; error: unknown }> {
  const r = await fetch(`${api.issuer}/api/oauth/token`, {
    method: 'POST',
    headers: { ...rp.headers, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: 'no-such-code', redirect_uri: 'https://rp.example.com/cb' }).toString(),
  });
  return { status: r.status, error: ((await r.json()) as { error?: unknown }).error };
}

const alert = (page: Page) => page.getByRole('alert');
const status = (page: Page) => page.getByRole('status');
const focusedId = (page: Page) => page.evaluate<string>("document.activeElement ? document.activeElement.id : ''");

describe('the admin console Users, Apps, Invites and Settings pages', () => {
  it('is the 404 of an unknown path to a non-admin (GET and POST); a forged form without CSRF is 403 and changes nothing', async () => {
    const [member, target, admin] = await Promise.all([user('console2-member'), user('console2-target'), user('console2-csrf', true)]);
    const rp = await app('Kept app');
    const invitesBefore = await api.deps.store.invites.countDocuments({});
    const page = await signedIn(member);
    const csrf = await page.locator('input[name=csrf]').first().inputValue();
    const u = `/admin/users/${target.id}`;
    const a = `/admin/apps/${rp.id}`;
    for (const path of ['/admin/users', '/admin/users?q=x', u, '/admin/apps', a, '/admin/invites', '/admin/settings']) {
      const r = await page.request.get(`${api.issuer}${path}`, { maxRedirects: 0 });
      expect([path, r.status()]).toEqual([path, 404]);
    }
    const posts = [
      u,
      `${u}/disable`,
      `${u}/reset-2fa`,
      `${u}/revoke-tokens`,
      `${u}/delete`,
      `${a}/verify`,
      `${a}/deactivate`,
      '/admin/invites',
      '/admin/settings',
    ];
    const form = { csrf, disabled: '1', confirm: target.email, verified: '1', role: 'admin', registration: 'open' };
    for (const path of posts) {
      const r = await page.request.post(`${api.issuer}${path}`, { form, maxRedirects: 0 });
      expect([path, r.status()]).toEqual([path, 404]);
    }

    const adminPage = await signedIn(admin);
    for (const path of posts) {
      for (const forged of [
        { ...form, csrf: undefined },
        { ...form, csrf: 'x'.repeat(43) },
      ]) {
        const r = await adminPage.request.post(`${api.issuer}${path}`, { form: forged as Record<string, string>, maxRedirects: 0 });
        expect([path, r.status()]).toEqual([path, 403]);
      }
    }
    expect(await findUserById(api.deps.store, target.id)).toMatchObject({ role: 'user', email: target.email });
    expect((await findUserById(api.deps.store, target.id))?.disabled).not.toBe(true);
    expect(await findClient(api.deps.store, rp.id)).toMatchObject({ isVerified: false });
    expect((await findClient(api.deps.store, rp.id))?.deactivatedAt ?? null).toBeNull();
    expect((await getSiteSettings(api.deps.store)).registration).toBe('invite');
    expect(await api.deps.store.invites.countDocuments({})).toBe(invitesBefore);
  });

  it('finds a user, disables them (their session ends) and enables them, resets their second factors, and deletes them by their email', async () => {
    const admin = await user('console2-users', true);
    const target = await newUser(api.deps, { password: PASSWORD, prefix: 'console2-found', name: '<b>Found</b> Person', totpSecret: 'JBSWY3DPEHPK3PXP' });
    const other = await user('console2-other');
    const targetPage = await signedIn(other);
    const page = await signedIn(admin);
    await page.getByRole('link', { name: 'Administration' }).click();
    await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Users' }).click();
    await page.getByLabel(/^Search by email/).fill(target.email.split('@')[0]!);
    await page.getByRole('button', { name: 'Search' }).click();
    const rows = page.locator('tr[data-user]');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().getAttribute('data-user')).toBe(target.id);
    expect(await rows.first().textContent()).toContain('<b>Found</b> Person');
    expect(await rows.first().textContent()).toContain('authenticator app');

    // Disabling the other user ends their session.
    await page.goto(`${api.issuer}/admin/users/${other.id}`);
    await confirmAction(page, 'Disable account', 'Yes, disable the account');
    expect(await status(page).textContent()).toContain('The account is disabled');
    expect(await page.locator('[data-state]').textContent()).toBe('disabled');
    await targetPage.goto(`${api.issuer}/account`);
    expect(new URL(targetPage.url()).pathname).toBe('/login');
    await page.getByRole('button', { name: 'Enable account' }).click();
    expect(await page.locator('[data-state]').textContent()).toBe('enabled');
    expect((await findUserById(api.deps.store, other.id))?.disabled).toBe(false);
    await signedIn(other);

    // A taken email is refused on the page, what was typed kept.
    await page.goto(`${api.issuer}/admin/users/${target.id}`);
    await page.getByLabel('Email', { exact: true }).fill(admin.email);
    await page.getByRole('button', { name: 'Save user' }).click();
    expect(await alert(page).textContent()).toContain(`a user with email ${admin.email} already exists`);
    expect(await page.getByLabel('Email', { exact: true }).inputValue()).toBe(admin.email);
    expect((await findUserById(api.deps.store, target.id))?.email).toBe(target.email);
    await page.getByLabel('Email', { exact: true }).fill(target.email);
    await page.getByLabel('Username', { exact: true }).fill('Not Valid');
    await page.getByRole('button', { name: 'Save user' }).click();
    expect(await alert(page).textContent()).toContain('username:');

    await page.goto(`${api.issuer}/admin/users/${target.id}`);
    await confirmAction(page, 'Reset second factors', 'Yes, reset second factors');
    expect(await status(page).textContent()).toContain('Second factors removed');
    expect((await findUserById(api.deps.store, target.id))?.totp ?? null).toBeNull();
    await confirmAction(page, 'Revoke all tokens', 'Yes, revoke all tokens');
    expect(await status(page).textContent()).toContain('Every token of the user was revoked');

    await page.getByLabel(/to delete the account/).fill('someone@example.com');
    await page.getByRole('button', { name: 'Delete user' }).click();
    expect(await alert(page).textContent()).toContain(`type the email ${target.email}`);
    expect(await findUserById(api.deps.store, target.id)).not.toBeNull();
    await page.getByLabel(/to delete the account/).fill(target.email);
    await page.getByRole('button', { name: 'Delete user' }).click();
    await page.waitForURL(`${api.issuer}/admin/users`);
    expect(await findUserById(api.deps.store, target.id)).toBeNull();
    const [event] = (await auditRecords(api.deps.store, { event: 'user.deleted', 'actor.userId': admin.id })).reverse().slice(0, 1);
    expect([event?.subject, event?.data]).toEqual([{ userId: target.id }, {}]);
  });

  it('refuses, on the page, demoting yourself as the last enabled admin', async () => {
    const admin = await user('console2-last', true);
    // The other admins this database holds become users: this one is the last.
    await api.deps.store.users.updateMany({ role: 'admin', _id: { $ne: admin.id } }, { $set: { role: 'user' } });
    const page = await signedIn(admin);
    await page.goto(`${api.issuer}/admin/users/${admin.id}`);
    await page.getByLabel('Role', { exact: true }).selectOption('user');
    await page.getByRole('button', { name: 'Save user' }).click();
    expect(await alert(page).textContent()).toContain('last enabled administrator');
    expect((await findUserById(api.deps.store, admin.id))?.role).toBe('admin');
  });

  it('marks an app verified, deactivates it (the token endpoint refuses it) and reactivates it', async () => {
    const admin = await user('console2-apps', true);
    const rp = await app('<i>Listed</i> app');
    expect(await tokenError(rp)).toEqual({ status: 400, error: 'invalid_grant' });
    const page = await signedIn(admin);
    await page.goto(`${api.issuer}/admin/apps`);
    await page.getByLabel(/^Search by name/).fill(rp.id);
    await page.getByRole('button', { name: 'Search' }).click();
    const row = page.locator(`tr[data-app="${rp.id}"]`);
    expect(await row.locator('[data-verified]').textContent()).toBe('not verified');
    await row.getByRole('link', { name: '<i>Listed</i> app' }).click();
    await page.getByRole('button', { name: 'Mark as verified' }).click();
    expect(await status(page).textContent()).toContain('marked verified');
    await page.getByRole('link', { name: 'All apps' }).click();
    expect(await page.locator(`tr[data-app="${rp.id}"] [data-verified]`).textContent()).toBe('verified');

    await page.goto(`${api.issuer}/admin/apps/${rp.id}`);
    await page.getByLabel(/to deactivate the app/).fill('not-the-id');
    await page.getByRole('button', { name: 'Deactivate app' }).click();
    expect(await alert(page).textContent()).toContain(`type the client id ${rp.id}`);
    expect((await findClient(api.deps.store, rp.id))?.deactivatedAt ?? null).toBeNull();
    await page.getByLabel(/to deactivate the app/).fill(rp.id);
    await page.getByRole('button', { name: 'Deactivate app' }).click();
    expect(await page.locator('p [data-active]').textContent()).toBe('deactivated');
    skipTime(CLIENT_CACHE_MS);
    expect(await tokenError(rp)).toEqual({ status: 401, error: 'invalid_client' });

    await page.getByRole('button', { name: 'Reactivate app' }).click();
    expect(await status(page).textContent()).toContain('active again');
    skipTime(CLIENT_CACHE_MS);
    expect(await tokenError(rp)).toEqual({ status: 400, error: 'invalid_grant' });
    const events = await auditRecords(api.deps.store, { event: /^client\./, 'subject.clientId': rp.id, 'actor.userId': admin.id });
    expect(events.map((e) => [e.event, e.data])).toEqual([
      ['client.updated', { client_id: rp.id, changed: ['is_verified'] }],
      ['client.deactivated', { client_id: rp.id, grants_revoked: expect.any(Number) }],
      ['client.reactivated', { client_id: rp.id }],
    ]);
  });

  it("sets an app's machine access: the client then gets client_credentials tokens for it alone; a user scope is refused on the page", async () => {
    const admin = await user('console2-machine', true);
    const rp = await app('Machine app');
    const clientCredentials = async () => {
      const r = await fetch(`${api.issuer}/api/oauth/token`, {
        method: 'POST',
        headers: { ...rp.headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials' }).toString(),
      });
      return (await r.json()) as { error?: string; scope?: string };
    };
    expect((await clientCredentials()).error).toBe('unauthorized_client');
    const page = await signedIn(admin);
    await page.goto(`${api.issuer}/admin/apps/${rp.id}`);
    await page.getByLabel('Resources and scopes').fill('https://orders.example/ orders:read email');
    await page.getByRole('button', { name: 'Save machine access' }).click();
    expect(await alert(page).textContent()).toContain("email is a scope of Keyflow's users");
    expect((await findClient(api.deps.store, rp.id))?.machineAccess).toEqual([]);
    await page.getByLabel('Resources and scopes').fill('https://orders.example/ orders:read orders:write');
    await page.getByRole('button', { name: 'Save machine access' }).click();
    expect(await status(page).textContent()).toContain('machine access is saved');
    expect(await page.getByLabel('Resources and scopes').inputValue()).toBe('https://orders.example/ orders:read orders:write');
    skipTime(CLIENT_CACHE_MS);
    expect((await clientCredentials()).scope).toBe('orders:read orders:write');
    const events = (await auditRecords(api.deps.store, { event: 'client.updated', 'actor.userId': admin.id })).reverse().slice(0, 10);
    expect(events.map((e) => e.data.changed)).toEqual([['machine_access']]);
  });

  it('creates an invitation whose link is shown once and opens /signup, and revokes it: the link is then refused', async () => {
    const admin = await user('console2-invites', true);
    const invitee = uniqueEmail('console2-invitee');
    const page = await signedIn(admin);
    const invitesBefore = await api.deps.store.invites.countDocuments({});
    await page.goto(`${api.issuer}/admin/invites`);
    await page.getByLabel(/^Valid for/).fill('0');
    await page.getByRole('button', { name: 'Create invitation' }).evaluate((b) => b.closest('form')?.setAttribute('novalidate', ''));
    await page.getByRole('button', { name: 'Create invitation' }).click();
    expect(await alert(page).textContent()).toContain('expires_in_days: must be at least 1');
    expect(await api.deps.store.invites.countDocuments({})).toBe(invitesBefore);

    await page.getByLabel(/^Email/).fill(invitee);
    await page.getByLabel('Role', { exact: true }).selectOption('user');
    await page.getByLabel(/^Valid for/).fill('3');
    await page.getByRole('button', { name: 'Create invitation' }).click();
    const link = await page.getByLabel('Invitation link').inputValue();
    expect(link).toMatch(new RegExp(`^${api.issuer}/signup\\?invite=[A-Za-z0-9_-]{43}$`));
    expect(await page.getByLabel('Invitation link').getAttribute('readonly')).not.toBeNull();
    const row = page.locator('tr[data-invite]').filter({ hasText: invitee });
    expect(await row.locator('[data-state]').textContent()).toBe('pending');
    const inviteId = (await row.getAttribute('data-invite'))!;

    await page.goto(`${api.issuer}/admin/invites`);
    expect(await page.getByLabel('Invitation link').count()).toBe(0);
    expect(await page.content()).not.toContain(link.split('invite=')[1]);

    const invited = await newPage();
    await invited.goto(link);
    expect(await invited.getByRole('heading', { name: 'Create an account' }).count()).toBe(1);
    expect(await invited.getByLabel('Email', { exact: true }).inputValue()).toBe(invitee);

    await confirmAction(page.locator(`tr[data-invite="${inviteId}"]`), 'Revoke', 'Yes, revoke the invitation');
    expect(await status(page).textContent()).toContain('The invitation was revoked');
    expect(await page.locator(`tr[data-invite="${inviteId}"] [data-state]`).textContent()).toBe('revoked');
    expect((await findInvite(api.deps.store, inviteId))?.revokedAt).toBeInstanceOf(Date);
    const refused = await invited.goto(link);
    expect(refused?.status()).toBe(403);
    expect(await alert(invited).textContent()).toBe('This invitation was withdrawn.');
  });

  it('changes settings through the form: registration open and a captcha secret that never appears; a bad value is refused naming the setting', async () => {
    const secret = 'console-two-captcha-secret-42';
    const page = await signedIn(await user('console2-settings', true));
    try {
      await page.goto(`${api.issuer}/admin/settings`);
      await page.getByLabel(/^Registration/).selectOption('open');
      await page.getByLabel(/^Captcha secret key/).fill(secret);
      await page.getByRole('button', { name: 'Save settings' }).click();
      expect(await status(page).textContent()).toContain('Settings saved');
      expect(await page.content()).not.toContain(secret);
      expect(await page.getByLabel(/^Registration/).inputValue()).toBe('open');
      expect(await page.locator('[data-setting="captcha_secret_key"]').textContent()).toBe('********');
      expect(await page.getByLabel(/^Captcha secret key/).inputValue()).toBe('');
      expect((await getSiteSettings(api.deps.store)).registration).toBe('open');
      expect(await siteSecret(api.deps.store, api.deps.kek, 'captcha_secret_key')).toBe(secret);
      const [event] = (await auditRecords(api.deps.store, { event: 'config.changed' })).reverse().slice(0, 1);
      expect(event?.data).toEqual({ changed: ['captcha_secret_key', 'registration'], values: { registration: 'open' } });

      // Saving again without typing the secret keeps it.
      await page.getByLabel(/^Proof-of-work/).fill('99');
      await page.getByRole('button', { name: 'Save settings' }).click();
      expect(await alert(page).textContent()).toContain('pow_difficulty: must be at most 32');
      expect(await page.getByLabel(/^Proof-of-work/).inputValue()).toBe('99');
      expect((await getSiteSettings(api.deps.store)).pow_difficulty).toBe(18);
      await page.getByLabel(/^Proof-of-work/).fill('20');
      await page.getByRole('button', { name: 'Save settings' }).click();
      expect(await status(page).textContent()).toContain('Settings saved');
      expect(await siteSecret(api.deps.store, api.deps.kek, 'captcha_secret_key')).toBe(secret);

      await page.getByLabel('Clear the captcha secret key').check();
      await page.getByRole('button', { name: 'Save settings' }).click();
      expect(await siteSecret(api.deps.store, api.deps.kek, 'captcha_secret_key')).toBe('');
      expect(await page.locator('[data-setting="captcha_secret_key"]').textContent()).toBe('(empty)');
    } finally {
      await setSiteSetting(api.deps.store, 'registration', 'invite');
      await setSiteSetting(api.deps.store, 'pow_difficulty', 18);
      await setSiteSetting(api.deps.store, 'captcha_secret_key', '', api.deps.kek);
    }
  });

  it('creates an invitation with the keyboard alone', async () => {
    const page = await signedIn(await user('console2-keys', true));
    await page.goto(`${api.issuer}/admin/invites`);
    let tabs = 0;
    while ((await focusedId(page)) !== 'invite-email') {
      expect(++tabs).toBeLessThan(200);
      await page.keyboard.press('Tab');
    }
    const email = uniqueEmail('console2-keyboard');
    await page.keyboard.type(email);
    await page.keyboard.press('Tab'); // the role
    await page.keyboard.press('Tab'); // the days
    await page.keyboard.press('Tab'); // the button
    expect(await page.locator(':focus').evaluate((e) => e.tagName)).toBe('BUTTON');
    await page.keyboard.press('Enter');
    await page.getByLabel('Invitation link').waitFor();
    expect(await findUserByEmail(api.deps.store, email)).toBeNull();
    expect(await api.deps.store.invites.countDocuments({ email })).toBe(1);
  });
});
