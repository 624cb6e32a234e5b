// Every page of the account area and the admin console in headless Chromium,
// at 1280 and at 375 px: nothing wider than the screen (no sideways
// scrolling), axe-core clean, the navigation beside (or above) the content
// with this page's entry marked aria-current. A screenshot of each page at
// each width goes to data/screenshots/<width>/ for a reviewer to look at (the
// docs show three of them); the dark colour scheme is checked with axe on a
// page of each kind.
// Then what the layout promises beyond looks: ids copied whole from their cut
// cells, a sorted list, and destructive actions that ask first.
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { PROJECT_ROOT } from '../../../lib/runtime/paths.js';
import { createClient } from '../../../lib/store/clients.js';
import { createWebhook } from '../../../lib/store/webhooks.js';
import { createTeam, userActor } from '../../../lib/teams/team-changes.js';
import { sessionActor } from '../../../lib/webhooks/event-sources.js';
import { axeViolations } from '../../support/axe.js';
import { useBrowser } from '../../support/browser.js';
import { useLocalhostApi } from '../../support/harness.js';
import { newUser, type FixtureUser } from '../../../tools/fixtures/users.js';
import { testDatabase } from '../../support/database.js';

const PASSWORD = 'console pages password';
const SCREENSHOTS = path.join(PROJECT_ROOT, 'data/screenshots');
const WIDTHS = [1280, 375] as const;

const browser = useBrowser();
const api = useLocalhostApi(testDatabase('console_pages_browser').env);
afterEach(async () => {
  await browser.closeAll();
});

interface Visit {
  /** The screenshot's file name. */
  name: string;
  path: string;
  /** The navigation entry marked as this page's (its href). */
  current: string;
}

/** An admin with something on every page: a team, an app of their own, an invitation, an OAuth source, a webhook, a token. */
async function populated(): Promise<{ admin: FixtureUser; teamId: string; clientId: string }> {
  const admin = await newUser(api.deps, { password: PASSWORD, prefix: 'console-pages', admin: true });
  const deps = { store: api.deps.store, events: api.deps.events, audit: api.deps.audit };
  const team = await createTeam(deps, userActor(admin.id, sessionActor(admin.id)), {
    name: 'Platform team',
    slug: `platform-${Date.now().toString(36)}`,
    description: 'Runs the platform',
    parent_id: null,
    member_groups_enabled: false,
  });
  const { client } = await createClient(api.deps.store, {
    name: 'Orders dashboard',
    redirectUris: [{ type: 'equals', value: 'https://orders.example.com/callback' }],
    ownerUserId: admin.id,
  });
  await createWebhook(api.deps.store, api.deps.kek, {
    scope: 'admin',
    ownerUserId: null,
    name: 'SIEM feed',
    url: 'https://siem.example.com/hooks/keyflow',
    events: ['invite.revoke'],
  });
  return { admin, teamId: team._id, clientId: client._id };
}

/** Adds through the console what only the console makes easily: an invitation, an OAuth source and a personal access token. */
async function addThroughPages(page: Page): Promise<void> {
  await page.goto(`${api.issuer}/admin/invites`);
  await page.getByLabel(/^Email/).fill('new.colleague@example.com');
  await page.getByRole('button', { name: 'Create invitation' }).click();
  await page.locator('#created-invite').waitFor();
  await page.goto(`${api.issuer}/admin/sources`);
  await page.getByLabel('Name', { exact: true }).fill('Corporate IdP');
  await page.getByLabel(/^Slug/).fill(`corp-${Date.now().toString(36)}`);
  await page.getByLabel(/^Issuer/).fill('https://idp.example.com');
  await page.getByLabel('Client ID').fill('keyflow');
  await page.getByRole('button', { name: 'Add source' }).click();
  await page.waitForURL(`${api.issuer}/admin/sources`);
  await page.goto(`${api.issuer}/account/tokens`);
  await page.getByLabel('Name', { exact: true }).fill('Deploy script');
  await page.locator('input[name=scope]').first().check();
  await page.getByRole('button', { name: 'Create token' }).click();
  await page.getByRole('heading', { name: 'Your new token' }).waitFor();
}

function visits(teamId: string, clientId: string, userId: string, sourcePath: string): Visit[] {
  const account = (name: string, p: string, current = p): Visit => ({ name: `account-${name}`, path: p, current });
  const admin = (name: string, p: string, current = p): Visit => ({ name: `admin-${name}`, path: p, current });
  return [
    account('profile', '/account'),
    account('security', '/account/security'),
    account('password', '/account/password', '/account/security'),
    account('sessions', '/account/sessions'),
    account('apps', '/account/connected-apps'),
    account('tokens', '/account/tokens'),
    account('teams', '/account/teams'),
    account('team', `/account/teams/${teamId}`, '/account/teams'),
    account('sign-in-methods', '/account/social'),
    account('gpg-keys', '/account/gpg-keys'),
    account('domains', '/account/domains', '/account/gpg-keys'),
    account('developer-apps', '/account/apps'),
    account('developer-app-edit', `/account/apps/${clientId}/edit`, '/account/apps'),
    admin('overview', '/admin'),
    admin('users', '/admin/users'),
    admin('user', `/admin/users/${userId}`, '/admin/users'),
    admin('apps', '/admin/apps'),
    admin('app', `/admin/apps/${clientId}`, '/admin/apps'),
    admin('invites', '/admin/invites'),
    admin('teams', '/admin/teams'),
    admin('team', `/admin/teams/${teamId}`, '/admin/teams'),
    admin('sources', '/admin/sources'),
    admin('source', sourcePath, '/admin/sources'),
    admin('settings', '/admin/settings'),
    admin('audit', '/admin/audit'),
    admin('webhooks', '/admin/webhooks'),
  ];
}

/** How far the page is wider than the screen (0: no sideways scrolling), and the widest offender's tag and class. */
const overflow = (page: Page) =>
  page.evaluate<{ by: number; widest: string }>(`(() => {
    const width = document.documentElement.clientWidth;
    let widest = '';
    let most = width;
    for (const el of document.querySelectorAll('body *')) {
      const right = el.getBoundingClientRect().right;
      if (right > most + 0.5) { most = right; widest = el.tagName + '.' + el.className; }
    }
    return { by: document.documentElement.scrollWidth - width, widest };
  })()`);

describe('the account area and the admin console, page by page', () => {
  it('fits 1280 and 375 px screens, is axe-clean and marks the current page in the navigation, on every page', async () => {
    const { admin, teamId, clientId } = await populated();
    const setup = await browser.signedIn(api.issuer, admin.email, PASSWORD);
    await addThroughPages(setup);
    await setup.goto(`${api.issuer}/admin/sources`);
    await setup.locator('li[data-source] a').first().click();
    await setup.waitForURL(/\/admin\/sources\/[^/]+$/);
    const sourcePath = new URL(setup.url()).pathname;

    const problems: unknown[] = [];
    for (const width of WIDTHS) {
      const page = await browser.signedIn(api.issuer, admin.email, PASSWORD);
      await page.setViewportSize({ width, height: 900 });
      fs.mkdirSync(path.join(SCREENSHOTS, String(width)), { recursive: true });
      for (const visit of visits(teamId, clientId, admin.id, sourcePath)) {
        const res = await page.goto(`${api.issuer}${visit.path}`);
        if (res?.status() !== 200) problems.push({ width, page: visit.path, status: res?.status() });
        const nav = page.getByRole('navigation', { name: visit.path.startsWith('/admin') ? 'Administration' : 'Your account' });
        const marked = await nav.locator('a[aria-current="page"]').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
        if (JSON.stringify(marked) !== JSON.stringify([visit.current])) problems.push({ width, page: visit.path, marked, expected: visit.current });
        const { by, widest } = await overflow(page);
        if (by > 0) problems.push({ width, page: visit.path, overflowBy: by, widest });
        const violations = await axeViolations(page);
        if (violations.length) problems.push({ width, page: visit.path, violations });
        // What the screen shows (a full-page capture costs a second a page on a busy machine).
        await page.screenshot({ path: path.join(SCREENSHOTS, String(width), `${visit.name}.png`) });
      }
    }
    // The dark colour scheme has colours of its own: its contrasts are checked on pages that hold every kind
    // of element it colours (navigation, forms and buttons, confirmations, tables, the audit log).
    const dark = await browser.signedIn(api.issuer, admin.email, PASSWORD);
    await dark.emulateMedia({ colorScheme: 'dark' });
    const DARK = ['account-security', 'admin-users', 'admin-audit'];
    for (const visit of visits(teamId, clientId, admin.id, sourcePath).filter((v) => DARK.includes(v.name))) {
      await dark.goto(`${api.issuer}${visit.path}`);
      const violations = await axeViolations(dark);
      if (violations.length) problems.push({ scheme: 'dark', page: visit.path, violations });
    }
    expect(problems).toEqual([]);
    // 26 pages twice and three more, each checked by axe: a minute alone, more beside other suites.
  }, 300_000);

  it('copies a cut client id whole, and sorts the users and the apps by a column both ways', async () => {
    const { admin, clientId } = await populated();
    const context = await browser.newContext({ viewport: { width: 375, height: 800 }, permissions: ['clipboard-read', 'clipboard-write'] });
    const page = await context.newPage();
    await page.goto(`${api.issuer}/login`);
    await page.getByLabel('Email', { exact: true }).fill(admin.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${api.issuer}/account`);

    await page.goto(`${api.issuer}/admin/apps/${clientId}`);
    const id = page.locator('code.id').first();
    // Cut to its box on a phone, but whole in the page.
    expect(await id.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    expect(await id.textContent()).toBe(clientId);
    await page.getByRole('button', { name: 'Copy client ID' }).click();
    await page.getByRole('button', { name: 'Copy client ID' }).filter({ hasText: 'Copied' }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(clientId);

    await newUser(api.deps, { password: PASSWORD, prefix: 'aaa-first' });
    await newUser(api.deps, { password: PASSWORD, prefix: 'zzz-last' });
    await page.goto(`${api.issuer}/admin/users`);
    await page.getByRole('link', { name: 'Email' }).click();
    await page.waitForURL(/sort=email&dir=asc/);
    expect(await page.getByRole('columnheader', { name: /Email/ }).getAttribute('aria-sort')).toBe('ascending');
    const emails = () => page.locator('tr[data-user] td:first-child a').allTextContents();
    const ascending = await emails();
    expect(ascending).toEqual([...ascending].sort());
    await page.getByRole('link', { name: /Email/ }).click();
    await page.waitForURL(/sort=email&dir=desc/);
    expect(await page.getByRole('columnheader', { name: /Email/ }).getAttribute('aria-sort')).toBe('descending');
    const descending = await emails();
    expect(descending).toEqual([...descending].sort().reverse());

    // Apps by name, without regard to case; an order the list does not know reads as the default.
    for (const name of ['alpha app', 'Beta app', 'zeta app'])
      await createClient(api.deps.store, { name, redirectUris: [{ type: 'equals', value: 'https://rp.example.com/cb' }] });
    const names = () => page.locator('tr[data-app] td:first-child a').allTextContents();
    await page.goto(`${api.issuer}/admin/apps`);
    await page.getByRole('link', { name: 'Name' }).click();
    await page.waitForURL(/sort=name&dir=asc/);
    const byName = await names();
    const lower = byName.map((n) => n.toLowerCase());
    expect(lower).toEqual([...lower].sort());
    expect(byName.indexOf('Beta app')).toBe(byName.indexOf('alpha app') + 1);
    await page.getByRole('link', { name: /^Name/ }).click();
    await page.waitForURL(/sort=name&dir=desc/);
    expect(await names()).toEqual([...byName].reverse());
    expect((await page.goto(`${api.issuer}/admin/apps?sort=nope&dir=sideways`))?.status()).toBe(200);
    expect(await page.getByRole('columnheader', { name: /Created/ }).getAttribute('aria-sort')).toBe('ascending');
  });

  it('asks before revoking a token, signing out a session or removing an app, and changes nothing until confirmed', async () => {
    const { admin } = await populated();
    const page = await browser.signedIn(api.issuer, admin.email, PASSWORD);
    await addThroughPages(page);
    await page.goto(`${api.issuer}/account/tokens`);
    const item = page.getByRole('listitem').filter({ hasText: 'Deploy script' });
    const confirm = item.getByRole('button', { name: 'Yes, revoke the token' });
    expect(await confirm.isVisible()).toBe(false);
    await item.getByText('Revoke', { exact: true }).click();
    await confirm.waitFor();
    expect(await item.textContent()).toContain('Scripts using Deploy script stop working at once.');
    // Closing the question is the way back: nothing was revoked.
    await item.getByText('Revoke', { exact: true }).click();
    await confirm.waitFor({ state: 'hidden' });
    await page.reload();
    expect(await page.getByRole('listitem').filter({ hasText: 'Deploy script' }).count()).toBe(1);
    await item.getByText('Revoke', { exact: true }).click();
    await confirm.click();
    // What the change did, said on the page it comes back to.
    await page.getByRole('status').filter({ hasText: 'The token is revoked' }).waitFor();
    expect(await page.getByRole('listitem').filter({ hasText: 'Deploy script' }).count()).toBe(0);

    await page.goto(`${api.issuer}/account/sessions`);
    await page.getByText('Sign out everywhere', { exact: true }).click();
    expect(await page.getByRole('button', { name: 'Yes, sign out everywhere' }).isVisible()).toBe(true);
    await page.goto(`${api.issuer}/account/apps`);
    await page.getByText('Delete', { exact: true }).click();
    expect(await page.getByRole('button', { name: 'Yes, delete Orders dashboard' }).isVisible()).toBe(true);
    // Neither was confirmed: still signed in, the app still there.
    await page.goto(`${api.issuer}/account/apps`);
    expect(await page.getByText('Orders dashboard').count()).toBeGreaterThan(0);
  });
});
