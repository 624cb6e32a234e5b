// /admin/audit in a browser, as an operator works with it: records of an
// admin's changes made over HTTP (so with IP, user agent and request id); the
// filters narrow the list (a user, an event, a prefix such as `user.*`, an
// outcome); a record opens on every field; "Older records" leads to the next
// page and back; a filter that cannot be read is a 400 page naming it; and
// the page is axe-clean and fits the screen at 1280 and 375 px.
import type { Page } from 'playwright-core';
import { newId } from '../../../lib/security/secrets.js';
import { newUser, type FixtureUser } from '../../../tools/fixtures/users.js';
import { axeViolations } from '../../support/axe.js';
import { signInAtAccount, useBrowser } from '../../support/browser.js';
import { testDatabase } from '../../support/database.js';
import { useLocalhostApi } from '../../support/harness.js';
import { requestJson } from '../../support/http.js';
import { mintAccessToken } from '../../support/minted-token.js';

const PASSWORD = 'audit console password';
const PAGE_SIZE = 50;

const browser = useBrowser();
const api = useLocalhostApi(testDatabase('audit_console_browser').env);
afterEach(async () => {
  await browser.closeAll();
});

const user = (prefix: string, admin = false) => newUser(api.deps, { password: PASSWORD, prefix, admin });
async function signedIn(u: FixtureUser, viewport = { width: 1280, height: 900 }): Promise<Page> {
  const page = await browser.newPage({ viewport });
  await signInAtAccount(page, api.issuer, u.email, PASSWORD);
  return page;
}

/** A name change, a disabling and an enabling of `target` by `admin` through the admin API. */
async function changesOf(admin: FixtureUser, target: FixtureUser): Promise<void> {
  const token = await mintAccessToken(api, admin.id, ['admin:users:write']);
  for (const body of [{ name: 'Audited in the console' }, { disabled: true }, { disabled: false }]) {
    const r = await requestJson(`${api.issuer}/api/oauth/me/admin/users/${target.id}`, 'PATCH', { token, body });
    expect(r.res.status).toBe(200);
  }
}

const listed = (page: Page) => page.locator('ol.audit > li').evaluateAll((items) => items.map((i) => i.getAttribute('data-event')));

async function filter(page: Page, fields: { event?: string; user?: string; outcome?: string }): Promise<void> {
  await page.goto(`${api.issuer}/admin/audit`);
  if (fields.event) await page.getByLabel('Event').selectOption(fields.event);
  if (fields.user) await page.getByLabel('User id').fill(fields.user);
  if (fields.outcome) await page.getByLabel('Outcome').selectOption(fields.outcome);
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/\/admin\/audit\?/);
}

/** No axe violation, and nothing wider than the screen. */
async function expectUsable(page: Page): Promise<void> {
  expect(await axeViolations(page)).toEqual([]);
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  expect(overflow).toBeLessThanOrEqual(0);
}

describe('the audit log page', () => {
  it('narrows the list by user, event, prefix and outcome, and opens a record on every field', async () => {
    const [admin, target] = await Promise.all([user('audit-console-admin', true), user('audit-console-target')]);
    await changesOf(admin, target);
    const page = await signedIn(admin);
    await page.getByRole('link', { name: 'Administration' }).click();
    await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Audit log' }).click();
    await page.waitForURL(`${api.issuer}/admin/audit`);
    expect(await page.locator('ol.audit > li').count()).toBeGreaterThanOrEqual(3);

    await filter(page, { user: target.id });
    expect(await listed(page)).toEqual(['user.enabled', 'user.disabled', 'user.updated']);
    await filter(page, { user: target.id, event: 'user.disabled' });
    expect(await listed(page)).toEqual(['user.disabled']);
    await filter(page, { user: target.id, event: 'user.*' });
    expect(page.url()).toContain('event=user.*');
    expect(await listed(page)).toEqual(['user.enabled', 'user.disabled', 'user.updated']);
    await filter(page, { user: target.id, event: 'client.*' });
    expect(await listed(page)).toEqual([]);
    expect(await page.getByText('No records.').count()).toBe(1);
    await filter(page, { user: target.id, outcome: 'failure' });
    expect(await listed(page)).toEqual([]);

    // The filters stay as chosen; a record's line says what, who, on whom, from where.
    await filter(page, { user: target.id, event: 'user.*' });
    expect(await page.getByLabel('User id').inputValue()).toBe(target.id);
    expect(await page.getByLabel('Event').inputValue()).toBe('user.*');
    const updated = page.locator('ol.audit > li[data-event="user.updated"]');
    const line = await updated.locator('summary').textContent();
    expect(line).toContain(`by user · user ${admin.id}`);
    expect(line).toContain(`on user ${target.id}`);
    expect(line).toMatch(/from (127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)/);
    // Its details: hidden until opened, then every field.
    const details = updated.locator('dl');
    expect(await details.isVisible()).toBe(false);
    await updated.locator('summary').click();
    expect(await details.isVisible()).toBe(true);
    const fields = Object.fromEntries(
      await details.evaluate((dl) => [...dl.querySelectorAll('dt')].map((dt) => [dt.textContent, dt.nextElementSibling?.textContent ?? ''])),
    );
    expect(Object.keys(fields)).toEqual([
      'Time',
      'Event',
      'Stream',
      'Outcome',
      'Actor',
      'Subject',
      'IP address',
      'User agent',
      'Request id',
      'Data',
      'Record id',
      'Sealed',
    ]);
    expect(JSON.parse(fields.Data)).toEqual({ changed: ['name'] });
    expect(fields['Request id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(fields['User agent']).not.toBe('');
    expect(fields.Stream).toBe('admin');

    await expectUsable(page);
  });

  it('pages with "Older records" and back to the newest', async () => {
    const admin = await user('audit-console-pager', true);
    // More records of one user than a page shows.
    const subjectId = newId();
    for (let i = 0; i <= PAGE_SIZE; i++)
      await api.deps.audit.record('user.updated', { actor: { type: 'operator' }, subject: { userId: subjectId }, data: { changed: [`field_${i}`] } });
    const page = await signedIn(admin);
    await filter(page, { user: subjectId });
    const first = await page.locator('ol.audit > li').evaluateAll((items) => items.map((i) => i.getAttribute('data-id')));
    expect(first).toHaveLength(PAGE_SIZE);
    expect(await page.getByRole('heading', { name: 'Newest records' }).count()).toBe(1);
    await page.getByRole('link', { name: 'Older records' }).click();
    await page.waitForURL(/cursor=/);
    const second = await page.locator('ol.audit > li').evaluateAll((items) => items.map((i) => i.getAttribute('data-id')));
    expect(second).toHaveLength(1);
    expect(first).not.toContain(second[0]);
    // The oldest record is the first one recorded; the filter went along.
    expect(await page.locator('ol.audit > li pre').textContent()).toContain('field_0');
    expect(await page.getByLabel('User id').inputValue()).toBe(subjectId);
    expect(await page.getByRole('link', { name: 'Older records' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Newest records' }).click();
    expect(await page.locator('ol.audit > li').count()).toBe(PAGE_SIZE);
  });

  it('answers a filter or cursor it cannot read with a 400 page naming it', async () => {
    const admin = await user('audit-console-bad', true);
    const page = await signedIn(admin);
    for (const [query, field] of [
      ['event=admin.user.update', 'event:'],
      ['event=nothing.*', 'event:'],
      ['from=yesterday', 'from:'],
      ['to=2026-02-31x', 'to:'],
      ['outcome=maybe', 'outcome:'],
      ['cursor=garbage', 'cursor:'],
      [`user=${'x'.repeat(300)}`, 'user:'],
    ]) {
      const res = await page.goto(`${api.issuer}/admin/audit?${query}`);
      expect([query, res?.status()]).toEqual([query, 400]);
      expect(await page.getByRole('alert').textContent()).toContain(field);
    }
    // The refusal page is usable too.
    await expectUsable(page);
  });

  it('is axe-clean and fits a 375 px screen, a record opened', async () => {
    const [admin, target] = await Promise.all([user('audit-console-narrow', true), user('audit-console-narrow-target')]);
    await changesOf(admin, target);
    const page = await signedIn(admin, { width: 375, height: 800 });
    await filter(page, { user: target.id });
    await page.locator('ol.audit > li summary').first().click();
    await expectUsable(page);
    // Usable by keyboard: the record's line is reached with Tab and opened with Enter.
    const second = page.locator('ol.audit > li summary').nth(1);
    await second.focus();
    await page.keyboard.press('Enter');
    expect(await page.locator('ol.audit > li').nth(1).locator('dl').isVisible()).toBe(true);
  });
});
