// The admin console (/admin) in headless Chromium: what a non-admin and a
// signed-out browser get, the overview's counts, deleting a team by its slug
// (and finding the event in the audit log), OAuth sources added, edited and
// removed without their secret ever in a page, settings with secrets masked,
// the admin webhooks list, a forged form, and a form used by keyboard alone.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { auditRecords } from '../../support/audit.js';
import { findSourceBySlug } from '../../../lib/store/oauth-sources.js';
import { setSiteSetting } from '../../../lib/store/settings.js';
import { findTeam } from '../../../lib/store/teams.js';
import { recordDelivery } from '../../../lib/store/webhook-history.js';
import { createWebhook, deleteWebhook } from '../../../lib/store/webhooks.js';
import { createTeam, userActor, type TeamDeps } from '../../../lib/teams/team-changes.js';
import { sessionActor } from '../../../lib/webhooks/event-sources.js';
import { useBrowser } from '../../support/browser.js';
import { useLocalhostApi } from '../../support/harness.js';
import { newUser, type FixtureUser } from '../../../tools/fixtures/users.js';
import { testDatabase } from '../../support/database.js';

const PASSWORD = 'admin console password';

const browser = useBrowser();
let deps: TeamDeps;

const api = useLocalhostApi(testDatabase('admin_console_browser').env);
beforeAll(async () => {
  deps = { store: api.deps.store, events: api.deps.events, audit: api.deps.audit };
});
afterEach(async () => {
  await browser.closeAll();
});

const user = (prefix: string, admin = false) => newUser(api.deps, { password: PASSWORD, prefix, admin });
/** Slugs sort first ('0…'), so the team is on the console's first page whatever else the database holds. */
const slug = (prefix: string) => `0${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;

const newPage = browser.newPage;

const signedIn = (u: FixtureUser) => browser.signedIn(api.issuer, u.email, PASSWORD);

async function teamOf(owner: FixtureUser, name: string): Promise<{ id: string; slug: string }> {
  const s = slug('t');
  const team = await createTeam(deps, userActor(owner.id, sessionActor(owner.id)), {
    name,
    slug: s,
    description: '',
    parent_id: null,
    member_groups_enabled: false,
  });
  return { id: team._id, slug: s };
}

const alert = (page: Page) => page.getByRole('alert');
/** The id of the element with the keyboard focus ('' for none). */
const focusedId = (page: Page) => page.evaluate<string>("document.activeElement ? document.activeElement.id : ''");

describe('the admin console in a browser', () => {
  it('is the 404 of an unknown path to a signed-in non-admin, on every /admin path and method; signed out, the sign-in redirect', async () => {
    const [member, owner] = await Promise.all([user('console-member'), user('console-owner')]);
    const team = await teamOf(owner, 'Kept');
    const page = await signedIn(member);
    expect(await page.getByRole('link', { name: 'Administration' }).count()).toBe(0);
    const csrf = await page.locator('input[name=csrf]').first().inputValue();
    const unknown = await page.request.get(`${api.issuer}/no-such-page`);
    expect(unknown.status()).toBe(404);

    const gets = [
      '/admin',
      '/admin/',
      '/admin/teams',
      `/admin/teams/${team.id}`,
      '/admin/sources',
      '/admin/sources/x',
      '/admin/settings',
      '/admin/audit',
      '/admin/webhooks',
      '/admin/nope',
      '/ADMIN/teams',
    ];
    for (const path of gets) {
      const r = await page.request.get(`${api.issuer}${path}`, { maxRedirects: 0 });
      expect([path, r.status()]).toEqual([path, 404]);
      // The page any unknown browser path gets: nothing tells the admin area exists.
      expect(await r.text()).toContain('<h1>Page not found</h1>');
    }
    const posts = [`/admin/teams/${team.id}/delete`, '/admin/sources', '/admin/sources/x', '/admin/sources/x/delete', '/admin/settings', '/admin'];
    for (const path of posts) {
      const r = await page.request.post(`${api.issuer}${path}`, { form: { csrf, confirm: team.slug }, maxRedirects: 0 });
      expect([path, r.status()]).toEqual([path, 404]);
    }
    expect(await findTeam(api.deps.store, team.id)).not.toBeNull();

    const signedOut = await newPage();
    for (const path of ['/admin', '/admin/teams']) {
      const r = await signedOut.request.get(`${api.issuer}${path}`, { maxRedirects: 0 });
      expect([path, r.status(), r.headers().location]).toEqual([path, 303, '/login']);
    }
  });

  it('shows the overview counts, deletes a team by typing its slug, and finds team.delete in the audit log by its filter', async () => {
    const [admin, owner] = await Promise.all([user('console-admin', true), user('console-owner')]);
    const doomed = await teamOf(owner, '<img src=x onerror=alert(1)> Doomed');
    const page = await signedIn(admin);
    await page.getByRole('link', { name: 'Administration' }).click();
    await page.waitForURL(`${api.issuer}/admin`);
    const count = async (what: string) => Number(await page.locator(`[data-count="${what}"]`).textContent());
    expect(await count('users')).toBe(await api.deps.store.users.countDocuments({}));
    expect(await count('teams')).toBe(await api.deps.store.teams.countDocuments({}));
    const users = await count('users');
    await user('console-extra');
    await page.reload();
    expect(await count('users')).toBe(users + 1);

    await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Teams' }).click();
    const listed = page.locator(`tr[data-team="${doomed.id}"]`).getByRole('link');
    expect(await listed.textContent()).toBe('<img src=x onerror=alert(1)> Doomed');
    await listed.click();
    await page.getByRole('heading', { level: 1, name: '<img src=x onerror=alert(1)> Doomed' }).waitFor();
    const row = page.locator(`section[data-team="${doomed.id}"]`);
    await row.getByLabel(/to delete this team/).fill('wrong-slug');
    await row.getByRole('button', { name: `Delete ${doomed.slug}` }).click();
    expect(await alert(page).textContent()).toContain(`type the slug ${doomed.slug}`);
    expect(await findTeam(api.deps.store, doomed.id)).not.toBeNull();

    await page
      .locator(`section[data-team="${doomed.id}"]`)
      .getByLabel(/to delete this team/)
      .fill(doomed.slug);
    await page
      .locator(`section[data-team="${doomed.id}"]`)
      .getByRole('button', { name: `Delete ${doomed.slug}` })
      .click();
    await page.waitForURL(`${api.issuer}/admin/teams`);
    expect(await page.locator(`tr[data-team="${doomed.id}"]`).count()).toBe(0);
    expect(await findTeam(api.deps.store, doomed.id)).toBeNull();

    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByLabel('Event').selectOption('team.delete');
    await page.getByLabel('User id').fill(admin.id);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/event=team\.delete/);
    const records = page.locator('ol.audit > li');
    expect(await records.count()).toBeGreaterThan(0);
    for (const name of await records.evaluateAll((items) => items.map((i) => i.getAttribute('data-event')))) expect(name).toBe('team.delete');
    const record = records.filter({ hasText: doomed.slug });
    expect(await record.count()).toBe(1);
    expect(await record.textContent()).toContain(`user ${admin.id}`);
    // The team's name is in the record's data as text, not markup.
    expect(await page.locator('ol.audit img').count()).toBe(0);
    expect(await page.content()).toContain('&lt;img src=x onerror=alert(1)&gt; Doomed');

    await page.goto(`${api.issuer}/admin/audit?from=yesterday`);
    expect(await alert(page).textContent()).toContain('from: must be a date');
  });

  it('adds, edits and removes an OAuth source; the client secret is never in a page', async () => {
    const admin = await user('console-sources', true);
    const page = await signedIn(admin);
    const sourceSlug = `src-${Date.now().toString(36)}`;
    const secrets = ['first-secret-value-1234', 'second-secret-value-5678'];
    await page.goto(`${api.issuer}/admin/sources`);
    await page.getByLabel('Name', { exact: true }).fill('Example IdP');
    await page.getByLabel(/^Slug/).fill(sourceSlug);
    await page.getByLabel(/^Issuer/).fill('http://idp.example.com');
    await page.getByLabel('Client ID').fill('keyflow-client');
    await page.getByLabel(/^Client secret/).fill(secrets[0]!);
    await page.getByRole('button', { name: 'Add source' }).click();
    expect(await alert(page).textContent()).toContain('issuer: must use https');
    expect(await page.getByLabel(/^Slug/).inputValue()).toBe(sourceSlug);
    expect(await page.content()).not.toContain(secrets[0]);

    await page.getByLabel(/^Issuer/).fill('https://idp.example.com');
    await page.getByLabel(/^Client secret/).fill(secrets[0]!);
    await page.getByRole('button', { name: 'Add source' }).click();
    await page.waitForURL(`${api.issuer}/admin/sources`);
    const created = await findSourceBySlug(api.deps.store, sourceSlug);
    expect(created?.clientSecret).not.toBeNull();
    expect(created?.issuer).toBe('https://idp.example.com');
    expect(await page.content()).not.toContain(secrets[0]);

    await page.locator(`li[data-source="${sourceSlug}"]`).getByRole('link').click();
    expect(await page.locator('[data-secret-set]').textContent()).toBe('set');
    expect(await page.getByLabel(/^New client secret/).inputValue()).toBe('');
    await page.getByLabel('Name', { exact: true }).fill('Example IdP (renamed)');
    await page.getByLabel(/^New client secret/).fill(secrets[1]!);
    await page.getByRole('button', { name: 'Save source' }).click();
    await page.waitForURL(/\/admin\/sources\/[^/]+$/);
    const html = await page.content();
    for (const s of secrets) expect(html).not.toContain(s);
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Example IdP (renamed)');
    const updated = await findSourceBySlug(api.deps.store, sourceSlug);
    expect(updated?.clientSecret?.ct).not.toBe(created?.clientSecret?.ct);
    const [event] = (await auditRecords(api.deps.store, { event: 'oauth_source.update', 'actor.userId': admin.id })).reverse().slice(0, 1);
    expect(event?.data).toMatchObject({ slug: sourceSlug, changed: ['name', 'client_secret'] });
    expect(JSON.stringify(event)).not.toContain(secrets[1]);

    await page.getByLabel(/to remove the source/).fill(sourceSlug);
    await page.getByRole('button', { name: 'Remove source' }).click();
    await page.waitForURL(`${api.issuer}/admin/sources`);
    expect(await page.locator(`li[data-source="${sourceSlug}"]`).count()).toBe(0);
    expect(await findSourceBySlug(api.deps.store, sourceSlug)).toBeNull();
  });

  it('shows the settings with secrets masked and lists an admin webhook with its latest delivery', async () => {
    const captchaSecret = 'captcha-secret-never-shown-42';
    await setSiteSetting(api.deps.store, 'captcha_secret_key', captchaSecret, api.deps.kek);
    // Subscribed to an event no test here causes: nothing is delivered to it.
    const { webhook } = await createWebhook(api.deps.store, api.deps.kek, {
      scope: 'admin',
      ownerUserId: null,
      name: 'SIEM <feed>',
      url: 'https://siem.example.com/hooks/secret-path-token',
      events: ['invite.revoke'],
    });
    await recordDelivery(api.deps.store, {
      _id: randomUUID(),
      webhookId: webhook._id,
      event: 'invite.revoke',
      success: false,
      statusCode: 502,
      error: null,
      deliveredAt: new Date(),
      durationMs: 12,
    });
    try {
      const page = await signedIn(await user('console-settings', true));
      await page.goto(`${api.issuer}/admin/settings`);
      expect(await page.locator('[data-setting="captcha_secret_key"]').textContent()).toBe('********');
      expect(await page.locator('[data-setting="pow_difficulty"]').textContent()).toBe('18');
      expect(await page.content()).not.toContain(captchaSecret);

      await page.getByRole('link', { name: 'Webhooks' }).click();
      const row = page.locator(`section[data-webhook="${webhook._id}"]`);
      expect(await row.locator('h3').textContent()).toBe('SIEM <feed>');
      expect(await row.textContent()).toContain('siem.example.com');
      expect(await row.textContent()).toContain('failed (HTTP 502)');
      expect(await page.content()).not.toContain('secret-path-token');
    } finally {
      await deleteWebhook(api.deps.store, webhook._id);
      await setSiteSetting(api.deps.store, 'captcha_secret_key', '', api.deps.kek);
    }
  });

  it('refuses a forged form without the CSRF token (403) and changes nothing', async () => {
    const [admin, owner] = await Promise.all([user('console-csrf', true), user('console-owner')]);
    const team = await teamOf(owner, 'Forged target');
    const page = await signedIn(admin);
    for (const form of [{ confirm: team.slug }, { confirm: team.slug, csrf: 'x'.repeat(43) }] as Record<string, string>[]) {
      const r = await page.request.post(`${api.issuer}/admin/teams/${team.id}/delete`, { form, maxRedirects: 0 });
      expect(r.status()).toBe(403);
    }
    const source = await page.request.post(`${api.issuer}/admin/sources`, {
      form: { name: 'Forged', slug: 'forged', issuer: 'https://x.example', client_id: 'x' },
      maxRedirects: 0,
    });
    expect(source.status()).toBe(403);
    expect(await findTeam(api.deps.store, team.id)).not.toBeNull();
    expect(await findSourceBySlug(api.deps.store, 'forged')).toBeNull();
  });

  it('deletes a team with the keyboard alone: Tab to the confirmation, type the slug, Tab to the button, Enter', async () => {
    const [admin, owner] = await Promise.all([user('console-keys', true), user('console-owner')]);
    const team = await teamOf(owner, 'Keyboard target');
    const page = await signedIn(admin);
    await page.goto(`${api.issuer}/admin/teams/${team.id}`);
    const target = `confirm-${team.id}`;
    let tabs = 0;
    while ((await focusedId(page)) !== target) {
      expect(++tabs).toBeLessThan(400);
      await page.keyboard.press('Tab');
    }
    await page.keyboard.type(team.slug);
    await page.keyboard.press('Tab'); // the cascade checkbox
    await page.keyboard.press('Tab'); // the button
    expect(await page.locator(':focus').evaluate((e) => e.tagName)).toBe('BUTTON');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${api.issuer}/admin/teams`);
    await page.locator(`tr[data-team="${team.id}"]`).waitFor({ state: 'detached' });
    expect(await findTeam(api.deps.store, team.id)).toBeNull();
  });
});
