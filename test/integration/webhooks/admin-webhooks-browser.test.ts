// The admin console's Webhooks page in headless Chromium: creating an admin
// webhook shows its signing secret once (not after a reload) and "Send a test"
// reaches a receiver that verifies the signature with it; an http URL that is
// not admitted is refused on the page; editing changes the events; deleting
// needs the name typed; a non-admin gets 404 and a forged form 403.
import type { Page } from 'playwright-core';
import { auditRecords } from '../../support/audit.js';
import { findWebhook, listWebhooks } from '../../../lib/store/webhooks.js';
import type { WebhookDoc } from '../../../lib/model/webhooks.js';
import { useBrowser } from '../../support/browser.js';
import { useLocalhostApi } from '../../support/harness.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';
import { newUser, type FixtureUser } from '../../../tools/fixtures/users.js';
import { testDatabase } from '../../support/database.js';

const PASSWORD = 'admin webhooks browser password';

const browser = useBrowser();
let receiver: WebhookReceiver;

const api = useLocalhostApi({ ...testDatabase('admin_webhooks_browser').env, OUTBOUND_ALLOWLIST: 'webhooks=127.0.0.1:*' });
beforeAll(async () => {
  // The receiver listens on 127.0.0.1 over http: admitted only because the allow-list names it for webhooks.
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
});
afterEach(async () => {
  await browser.closeAll();
});

const user = (prefix: string, admin = false) => newUser(api.deps, { password: PASSWORD, prefix, admin });

const signedIn = (u: FixtureUser) => browser.signedIn(api.issuer, u.email, PASSWORD);

const byName = async (name: string): Promise<WebhookDoc | undefined> => (await listWebhooks(api.deps.store, 'admin')).find((w) => w.name === name);

/** Fills and sends the create form; `events` are the boxes ticked (the default `*` is unticked first). */
async function create(page: Page, name: string, url: string, events: string[] = ['*']): Promise<void> {
  await page.goto(`${api.issuer}/admin/webhooks`);
  const form = page.locator('#new-webhook');
  await form.getByLabel('Name').fill(name);
  await form.getByLabel('URL (https)').fill(url);
  await form.getByLabel('* (every admin event)').uncheck();
  for (const e of events) await form.getByLabel(e === '*' ? '* (every admin event)' : e, { exact: true }).check();
  await form.getByRole('button', { name: 'Create webhook' }).click();
}

const section = (page: Page, id: string) => page.locator(`section[data-webhook="${id}"]`);

describe('the admin console Webhooks page', () => {
  it('creates an admin webhook whose secret is shown once; "Send a test" reaches a verifying receiver and shows its status', async () => {
    const admin = await user('hooks-create', true);
    const page = await signedIn(admin);
    const name = `Audit feed ${admin.id.slice(0, 6)}`;
    const path = `/feed-${admin.id}`;
    const answer = page.waitForResponse((r) => r.url() === `${api.issuer}/admin/webhooks` && r.request().method() === 'POST');
    await create(page, name, `${receiver.url}${path}`);
    expect((await answer).headers()['cache-control']).toBe('no-store');

    const secret = await page.locator('#webhook-secret').inputValue();
    expect(secret.length).toBeGreaterThanOrEqual(32);
    await expect(page.getByRole('status').first().textContent()).resolves.toContain('shown only this once');
    const hook = await byName(name);
    expect(hook).toMatchObject({ scope: 'admin', ownerUserId: admin.id, events: ['*'], isActive: true });
    // Stored sealed, never in clear; the answer is not cached; the list opened again does not show it.
    expect(JSON.stringify(hook)).not.toContain(secret);
    await page.goto(`${api.issuer}/admin/webhooks`);
    await expect(page.locator('#webhook-secret').count()).resolves.toBe(0);
    expect(await page.content()).not.toContain(secret);
    const [audit] = (await auditRecords(api.deps.store, { event: 'webhook.create', 'actor.userId': admin.id })).reverse().slice(0, 1);
    expect(audit?.data).toMatchObject({ webhook_id: hook!._id, name, url_host: new URL(receiver.url).host });
    expect(JSON.stringify(audit)).not.toContain(secret);

    receiver.secrets.set(path, secret);
    await section(page, hook!._id).getByRole('button', { name: 'Send a test' }).click();
    await expect(page.locator('#test-outcome').textContent()).resolves.toMatch(new RegExp(`Test delivery to ${name}: delivered \\(HTTP 200\\)`));
    const got = receiver.at(path).filter((d) => d.body.event === 'webhook.test');
    expect(got).toHaveLength(1);
    expect(got[0]!.verified).toBe(true);

    // A receiver answering 500: the page says so.
    receiver.answers.set(path, { status: 500 });
    await section(page, hook!._id).getByRole('button', { name: 'Send a test' }).click();
    await expect(page.locator('#test-outcome').textContent()).resolves.toContain('failed (HTTP 500)');
  });

  it('refuses on the page an http URL the allow-list does not admit, naming the field, and keeps what was typed', async () => {
    const admin = await user('hooks-http', true);
    const page = await signedIn(admin);
    const name = `Plain http ${admin.id.slice(0, 6)}`;
    await create(page, name, 'http://hooks.example.com/in', ['invite.create']);
    const alert = page.getByRole('alert');
    await expect(alert.textContent()).resolves.toMatch(/^url: must use https/);
    expect(await page.locator('#new-webhook').getByLabel('Name').inputValue()).toBe(name);
    expect(await page.locator('#new-webhook').getByLabel('invite.create', { exact: true }).isChecked()).toBe(true);
    expect(await byName(name)).toBeUndefined();
  });

  it('edits the events of a webhook, and deletes it only when its name is typed', async () => {
    const admin = await user('hooks-edit', true);
    const page = await signedIn(admin);
    const name = `Invites feed ${admin.id.slice(0, 6)}`;
    await create(page, name, `${receiver.url}/edit-${admin.id}`, ['invite.create']);
    const hook = (await byName(name))!;
    expect(hook.events).toEqual(['invite.create']);

    await page.goto(`${api.issuer}/admin/webhooks`);
    // The URL's path (often a secret) is not in the page: the edit form's URL is empty, and empty keeps it.
    expect(await page.content()).not.toContain(`/edit-${admin.id}`);
    const s = section(page, hook._id);
    await s.locator('summary', { hasText: `Edit ${name}` }).click();
    await s.getByLabel('invite.create', { exact: true }).uncheck();
    await s.getByLabel('invite.revoke', { exact: true }).check();
    await s.getByLabel('webhook.delete', { exact: true }).check();
    await s.getByLabel('Active (gets deliveries)').uncheck();
    await s.getByRole('button', { name: `Save ${name}` }).click();
    await page.waitForURL(`${api.issuer}/admin/webhooks?done=saved`);
    expect(await findWebhook(api.deps.store, hook._id)).toMatchObject({
      events: ['invite.revoke', 'webhook.delete'],
      isActive: false,
      url: `${receiver.url}/edit-${admin.id}`,
    });
    await expect(section(page, hook._id).getByText('Events: invite.revoke, webhook.delete').count()).resolves.toBe(1);

    // An inactive webhook gets no test ping: refused on the page.
    await section(page, hook._id).getByRole('button', { name: 'Send a test' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('inactive');

    await section(page, hook._id)
      .locator('summary', { hasText: `Delete ${name}` })
      .click();
    await section(page, hook._id)
      .getByLabel(/Type the name/)
      .fill('not the name');
    await section(page, hook._id)
      .getByRole('button', { name: `Delete ${name}` })
      .click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain(`type the name ${name}`);
    expect(await findWebhook(api.deps.store, hook._id)).not.toBeNull();

    await section(page, hook._id)
      .locator('summary', { hasText: `Delete ${name}` })
      .click();
    await section(page, hook._id)
      .getByLabel(/Type the name/)
      .fill(name);
    await section(page, hook._id)
      .getByRole('button', { name: `Delete ${name}` })
      .click();
    await page.waitForURL(`${api.issuer}/admin/webhooks?done=deleted`);
    expect(await findWebhook(api.deps.store, hook._id)).toBeNull();
    await expect(section(page, hook._id).count()).resolves.toBe(0);
  });

  it('is the 404 of an unknown path to a non-admin; a forged form without CSRF is 403 and changes nothing', async () => {
    const [member, admin] = await Promise.all([user('hooks-member'), user('hooks-csrf', true)]);
    const adminPage = await signedIn(admin);
    const name = `Kept ${admin.id.slice(0, 6)}`;
    await create(adminPage, name, `${receiver.url}/kept-${admin.id}`);
    const hook = (await byName(name))!;
    const one = `/admin/webhooks/${hook._id}`;
    const posts = ['/admin/webhooks', one, `${one}/test`, `${one}/delete`];
    const form = { name: 'Changed', url: 'https://hooks.example.com/x', events: 'invite.create', active: '1', confirm: name };

    const page = await signedIn(member);
    const csrf = await page.locator('input[name=csrf]').first().inputValue();
    expect((await page.request.get(`${api.issuer}/admin/webhooks`, { maxRedirects: 0 })).status()).toBe(404);
    for (const path of posts) {
      const r = await page.request.post(`${api.issuer}${path}`, { form: { ...form, csrf }, maxRedirects: 0 });
      expect([path, r.status()]).toEqual([path, 404]);
    }
    for (const path of posts) {
      for (const csrfValue of [undefined, 'x'.repeat(43)]) {
        const forged = csrfValue === undefined ? form : { ...form, csrf: csrfValue };
        const r = await adminPage.request.post(`${api.issuer}${path}`, { form: forged, maxRedirects: 0 });
        expect([path, r.status()]).toEqual([path, 403]);
      }
    }
    expect(await findWebhook(api.deps.store, hook._id)).toMatchObject({ name, events: ['*'], isActive: true });
    expect(await byName('Changed')).toBeUndefined();
    expect(receiver.at(`/kept-${admin.id}`).filter((d) => d.body.event === 'webhook.test')).toHaveLength(0);
  });
});
