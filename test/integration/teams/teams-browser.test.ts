// The /account/teams pages in headless Chromium: creating teams and child
// teams, members by email and username, roles, groups, inheritance down the
// tree, the member-write cap against a forged form, deletion with its typed
// confirmation, escaping, CSRF and what a stranger sees.
import type { Locator, Page } from 'playwright-core';
import { findMember, findTeam, findTeamBySlug } from '../../../lib/store/teams.js';
import { createTeam, userActor, type TeamDeps } from '../../../lib/teams/team-changes.js';
import { joinTeam } from '../../support/teams.js';
import { sessionActor } from '../../../lib/webhooks/event-sources.js';
import { useBrowser, confirmAction } from '../../support/browser.js';
import { useLocalhostApi } from '../../support/harness.js';
import { auditRecords } from '../../support/audit.js';
import { newUser, type FixtureUser } from '../../../tools/fixtures/users.js';

const PASSWORD = 'teams browser password';

const browser = useBrowser();
let deps: TeamDeps;

const api = useLocalhostApi();
beforeAll(async () => {
  deps = { store: api.deps.store, events: api.deps.events, audit: api.deps.audit };
});
afterEach(async () => {
  await browser.closeAll();
});

const user = (prefix: string) => newUser(api.deps, { password: PASSWORD, prefix });
const slug = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;
const teamUrl = (id: string) => `${api.issuer}/account/teams/${id}`;

const signedIn = (u: FixtureUser) => browser.signedIn(api.issuer, u.email, PASSWORD);

/** Fills the new-team form on the page it is on; returns the new team's id (from the page it lands on). */
async function createOnPage(page: Page, name: string, teamSlug: string): Promise<string> {
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel(/^Slug/).fill(teamSlug);
  await page.getByRole('button', { name: 'Create team' }).click();
  await page.waitForURL(/\/account\/teams\/[0-9a-f-]{36}$/);
  return page.url().split('/').pop()!;
}

/** A team made through the core (setup for tests about something else), owned by `owner`. */
async function teamOf(owner: FixtureUser, parentId: string | null = null): Promise<{ id: string; slug: string }> {
  const s = slug('t');
  const team = await createTeam(deps, userActor(owner.id, sessionActor(owner.id)), {
    name: `Team ${s}`,
    slug: s,
    description: '',
    parent_id: parentId,
    member_groups_enabled: false,
  });
  return { id: team._id, slug: s };
}

/** Fills the invitation form of the team page it is on and sends it. */
async function invite(page: Page, who: string, role = 'member'): Promise<void> {
  await page.getByLabel('Email, username or user id').fill(who);
  await page.locator('#member-role').selectOption(role);
  await page.getByRole('button', { name: 'Invite', exact: true }).click();
  await page.locator('ul.invitations li').filter({ hasText: who }).waitFor();
}

/** `u` signs in, accepts the invitation to `teamName` on their teams page, and lands on the team's page. */
async function acceptOnPage(u: FixtureUser, teamName: string): Promise<Page> {
  const page = await signedIn(u);
  await page.goto(`${api.issuer}/account/teams`);
  await page.getByRole('button', { name: `Accept and join ${teamName}` }).click();
  await page.waitForURL(/\/account\/teams\/[0-9a-f-]{36}$/);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(teamName);
  return page;
}

const memberItem = (page: Page, u: FixtureUser): Locator => page.locator(`li[data-member="${u.id}"]`);
const alert = (page: Page) => page.getByRole('alert');

describe('the teams pages in a browser', () => {
  it('creates a team and a child team, invites members by email and username who join by accepting, changes a role, gives a group and removes a member', async () => {
    const [alice, bob, carol] = await Promise.all([user('teams-alice'), user('teams-bob'), user('teams-carol')]);
    const page = await signedIn(alice);
    await page.getByRole('navigation', { name: 'Your account' }).getByRole('link', { name: 'Teams' }).click();
    await page.getByText('You are not in any team yet.').waitFor();
    const topSlug = slug('platform');
    const top = await createOnPage(page, 'Platform', topSlug);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Platform');
    expect(await page.locator('[data-my-role]').textContent()).toBe('owner');

    await page.getByRole('link', { name: 'Create a child team' }).click();
    expect(await page.getByLabel('Parent team').inputValue()).toBe(top);
    const child = await createOnPage(page, 'Platform SRE', slug('sre'));
    expect((await findTeam(api.deps.store, child))?.parentId).toBe(top);
    await page.getByRole('link', { name: 'Platform', exact: true }).click();
    await page.getByRole('link', { name: 'Platform SRE' }).waitFor();

    await invite(page, bob.email);
    await invite(page, carol.user.username, 'admin');
    expect(await page.locator('ul.invitations li').allTextContents()).toEqual([
      expect.stringContaining(bob.email),
      expect.stringContaining(carol.user.username),
    ]);
    expect(await memberItem(page, bob).count()).toBe(0);
    await acceptOnPage(bob, 'Platform');
    await acceptOnPage(carol, 'Platform');
    await page.reload();
    expect(await memberItem(page, carol).locator('[data-role]').textContent()).toBe('admin');
    expect(await memberItem(page, bob).textContent()).toContain(bob.email);
    expect(await page.locator('ul.invitations li').count()).toBe(0);

    await memberItem(page, bob).getByRole('combobox').selectOption('co-owner');
    await memberItem(page, bob).getByRole('button', { name: 'Change role' }).click();
    await page.waitForURL(teamUrl(top));
    expect(await memberItem(page, bob).locator('[data-role]').textContent()).toBe('co-owner');

    await page.getByLabel('Group slug').fill('oncall');
    await page.getByLabel('Group name').fill('On call');
    await page.getByRole('button', { name: 'Add group' }).click();
    await memberItem(page, bob).getByLabel('On call').check();
    await memberItem(page, bob).getByRole('button', { name: 'Set groups' }).click();
    expect(await memberItem(page, bob).locator('[data-groups]').textContent()).toBe('On call');
    expect((await findMember(api.deps.store, top, bob.id))?.groups).toEqual(['oncall']);

    await memberItem(page, carol)
      .getByRole('button', { name: /^Remove / })
      .click();
    await page.waitForURL(teamUrl(top));
    expect(await memberItem(page, carol).count()).toBe(0);
    expect(await findMember(api.deps.store, top, carol.id)).toBeNull();
    expect(await memberItem(page, bob).count()).toBe(1);
  });

  it('lets a grandparent admin see the grandchild (marked inherited) and invite a member there; a member sees it read only', async () => {
    const [owner, admin, newcomer] = await Promise.all([user('teams-owner'), user('teams-admin'), user('teams-newcomer')]);
    const a = await teamOf(owner);
    const b = await teamOf(owner, a.id);
    const c = await teamOf(owner, b.id);
    await joinTeam(deps, owner, a.id, admin, 'admin');

    const page = await signedIn(admin);
    await page.goto(`${api.issuer}/account/teams`);
    const item = page.getByRole('listitem').filter({ hasText: c.slug });
    expect(await item.textContent()).toContain('inherited from a parent team');
    expect(await item.locator('.badge').textContent()).toBe('admin');
    expect(await page.getByRole('listitem').filter({ hasText: a.slug }).locator('[data-inherited]').count()).toBe(0);
    await item.getByRole('link').click();
    await invite(page, newcomer.email);
    expect(await findMember(api.deps.store, c.id, newcomer.id)).toBeNull();

    const readOnly = await acceptOnPage(newcomer, `Team ${c.slug}`);
    expect((await findMember(api.deps.store, c.id, newcomer.id))?.role).toBe('member');
    await memberItem(readOnly, newcomer).waitFor();
    expect(await readOnly.locator('main form').count()).toBe(1); // "Leave team" only
    await confirmAction(readOnly, 'Leave team', 'Yes, leave the team');
    await readOnly.waitForURL(`${api.issuer}/account/teams`);
    expect(await findMember(api.deps.store, c.id, newcomer.id)).toBeNull();
  });

  it("caps an admin's roles: no owner or co-owner offered, and a forged owner is refused with the message shown", async () => {
    const [owner, admin, target] = await Promise.all([user('teams-cap-owner'), user('teams-cap-admin'), user('teams-cap-target')]);
    const team = await teamOf(owner);
    await joinTeam(deps, owner, team.id, admin, 'admin');
    await joinTeam(deps, owner, team.id, target, 'member');

    const page = await signedIn(admin);
    await page.goto(teamUrl(team.id));
    const offered = await page.locator('#member-role option').allTextContents();
    expect(offered).toEqual(['member', 'admin']);
    expect(await memberItem(page, target).locator('select option').count()).toBe(2);
    expect(await memberItem(page, owner).locator('form').count()).toBe(0);

    // A forged form: the select gets an option the page did not offer.
    const select = memberItem(page, target).getByRole('combobox');
    await select.evaluate((s) => s.insertAdjacentHTML('beforeend', '<option value="owner">owner</option>'));
    await select.selectOption('owner');
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      memberItem(page, target).getByRole('button', { name: 'Change role' }).click(),
    ]);
    expect(response.status()).toBe(403);
    expect(await alert(page).textContent()).toContain('cannot give the role owner');
    expect((await findMember(api.deps.store, team.id, target.id))?.role).toBe('member');

    // The same through a script with the page's CSRF token, adding the admin's pick as owner.
    const csrf = await page.locator('input[name=csrf]').first().inputValue();
    const status = await page.evaluate(
      async ({ url, csrf }) => (await fetch(url, { method: 'POST', body: new URLSearchParams({ csrf, role: 'owner' }) })).status,
      { url: `${teamUrl(team.id)}/members/${admin.id}`, csrf },
    );
    expect(status).toBe(403);
    expect((await findMember(api.deps.store, team.id, admin.id))?.role).toBe('admin');
  });

  it('deletes a team only when its slug is typed, and one with a child team only with the box ticked', async () => {
    const owner = await user('teams-delete');
    const leaf = await teamOf(owner);
    const parent = await teamOf(owner);
    const child = await teamOf(owner, parent.id);
    const page = await signedIn(owner);

    await page.goto(teamUrl(leaf.id));
    await page.getByLabel(/Type the team's slug/).fill(`${leaf.slug}x`);
    await page.getByRole('button', { name: 'Delete team' }).click();
    expect(await alert(page).textContent()).toContain('nothing was deleted');
    expect(await findTeam(api.deps.store, leaf.id)).not.toBeNull();
    await page.getByLabel(/Type the team's slug/).fill(leaf.slug);
    await page.getByRole('button', { name: 'Delete team' }).click();
    await page.waitForURL(`${api.issuer}/account/teams`);
    expect(await page.getByText(leaf.slug).count()).toBe(0);
    expect(await findTeam(api.deps.store, leaf.id)).toBeNull();

    await page.goto(teamUrl(parent.id));
    await page.getByLabel(/Type the team's slug/).fill(parent.slug);
    await page.getByRole('button', { name: 'Delete team' }).click();
    expect(await alert(page).textContent()).toContain('child teams');
    expect(await findTeam(api.deps.store, parent.id)).not.toBeNull();
    await page.getByLabel(/Type the team's slug/).fill(parent.slug);
    await page.getByLabel('Also delete its 1 child team ').check();
    await page.getByRole('button', { name: 'Delete team' }).click();
    await page.waitForURL(`${api.issuer}/account/teams`);
    expect(await findTeam(api.deps.store, parent.id)).toBeNull();
    expect(await findTeam(api.deps.store, child.id)).toBeNull();
  });

  it('changes settings: a refused slug keeps the team as it was; an owner moves a child team to the top level, an admin gets no parent select', async () => {
    const [owner, admin] = await Promise.all([user('teams-settings'), user('teams-settings-admin')]);
    const parent = await teamOf(owner);
    const child = await teamOf(owner, parent.id);
    await joinTeam(deps, owner, child.id, admin, 'admin');
    const page = await signedIn(owner);
    await page.goto(teamUrl(child.id));
    await page.getByRole('link', { name: `Team ${parent.slug}` }).waitFor();
    await page.locator('#settings-slug').fill('Not A Slug');
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Save settings' }).click(),
    ]);
    expect(refused.status()).toBe(400);
    expect(await alert(page).textContent()).toContain('slug');
    expect((await findTeam(api.deps.store, child.id))?.slug).toBe(child.slug);

    const renamed = slug('renamed');
    await page.goto(teamUrl(child.id));
    await page.locator('#settings-name').fill('Renamed team');
    await page.locator('#settings-slug').fill(renamed);
    await page.getByLabel('Enable member groups').check();
    await page.getByLabel('Parent team').selectOption('');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.waitForURL(teamUrl(child.id));
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Renamed team');
    expect(await page.getByText('Parent team:').count()).toBe(0);
    expect(await findTeam(api.deps.store, child.id)).toMatchObject({ slug: renamed, parentId: null, memberGroupsEnabled: true });
    // The description was sent unchanged: the audit record names only what changed.
    const updates = (await auditRecords(api.deps.store, { event: 'team.update' })).filter((r) => r.data.team_id === child.id);
    expect(updates.map((r) => [...(r.data.changed as string[])].sort())).toEqual([['member_groups_enabled', 'name', 'parent_id', 'slug']]);

    const adminPage = await signedIn(admin);
    await adminPage.goto(teamUrl(child.id));
    await adminPage.locator('#settings-name').waitFor();
    expect(await adminPage.locator('#settings-parent').count()).toBe(0);
    expect(await adminPage.getByRole('button', { name: 'Delete team' }).count()).toBe(0);
  });

  it('shows member emails only to managers; an invitation shows nothing of the team until accepted, and declining ends it', async () => {
    const [owner, admin, member, invited] = await Promise.all([
      user('teams-mail-owner'),
      user('teams-mail-admin'),
      user('teams-mail-member'),
      user('teams-mail-invited'),
    ]);
    const team = await teamOf(owner);
    await joinTeam(deps, owner, team.id, admin, 'admin');
    await joinTeam(deps, owner, team.id, member, 'member');

    const asMember = await signedIn(member);
    await asMember.goto(teamUrl(team.id));
    await memberItem(asMember, owner).waitFor();
    expect(await memberItem(asMember, owner).textContent()).toContain(owner.user.username);
    expect(await asMember.locator('[data-email]').count()).toBe(0);
    for (const u of [owner, admin, member]) expect(await asMember.content()).not.toContain(u.email);
    expect(await asMember.locator('ul.invitations').count()).toBe(0);
    const asAdmin = await signedIn(admin);
    await asAdmin.goto(teamUrl(team.id));
    expect(await memberItem(asAdmin, owner).locator('[data-email]').textContent()).toBe(owner.email);

    await invite(asAdmin, invited.email);
    const page = await signedIn(invited);
    expect((await page.goto(teamUrl(team.id)))?.status()).toBe(404);
    await page.goto(`${api.issuer}/account/teams`);
    const item = page.locator('ul.invitations li');
    expect(await item.textContent()).toContain(`Team ${team.slug}`);
    expect(await page.getByText('You are not in any team yet.').count()).toBe(1);
    await item.getByRole('button', { name: 'Decline' }).click();
    await page.waitForURL(`${api.issuer}/account/teams`);
    expect(await page.locator('ul.invitations').count()).toBe(0);
    expect(await findMember(api.deps.store, team.id, invited.id)).toBeNull();
    await asAdmin.reload();
    expect(await asAdmin.locator('ul.invitations').count()).toBe(0);
  });

  it('offers a co-owner no move, refuses a forged one with the reason, and lets the owner of the team and its parent move it', async () => {
    const [owner, coOwner, lead] = await Promise.all([user('teams-move-owner'), user('teams-move-co'), user('teams-move-lead')]);
    const team = await teamOf(owner);
    const child = await teamOf(owner, team.id);
    await joinTeam(deps, owner, team.id, coOwner, 'co-owner');
    await joinTeam(deps, owner, child.id, lead, 'owner');
    const coOwned = await teamOf(coOwner);
    const leadOwned = await teamOf(lead);

    for (const [who, target, parent] of [
      [coOwner, team, coOwned],
      [lead, child, leadOwned],
    ] as const) {
      const page = await signedIn(who);
      await page.goto(teamUrl(target.id));
      await page.locator('#settings-name').waitFor();
      expect(await page.locator('#settings-parent').count()).toBe(0);
      // The settings form, sent with a parent the page did not offer.
      const csrf = await page.locator('input[name=csrf]').first().inputValue();
      const forged = await page.request.post(`${teamUrl(target.id)}/settings`, {
        form: { csrf, name: `Team ${target.slug}`, slug: target.slug, description: '', parent_id: parent.id },
      });
      expect(forged.status()).toBe(403);
      expect(await forged.text()).toContain('moving a team needs owner on it and on its current parent team');
    }
    expect((await findTeam(api.deps.store, team.id))?.parentId).toBeNull();
    expect((await findTeam(api.deps.store, child.id))?.parentId).toBe(team.id);
    expect((await findMember(api.deps.store, team.id, owner.id))?.role).toBe('owner');

    const page = await signedIn(owner);
    await page.goto(teamUrl(child.id));
    await page.getByLabel('Parent team').selectOption('');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.waitForURL(teamUrl(child.id));
    expect((await findTeam(api.deps.store, child.id))?.parentId).toBeNull();
  });

  it('shows a team name with markup as text', async () => {
    const owner = await user('teams-xss');
    const page = await signedIn(owner);
    let dialogs = 0;
    page.on('dialog', (d) => {
      dialogs++;
      void d.dismiss();
    });
    const name = '<img src=x onerror=alert(1)>';
    await page.goto(`${api.issuer}/account/teams`);
    const id = await createOnPage(page, name, slug('xss'));
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(name);
    await page.goto(`${api.issuer}/account/teams`);
    await page.getByRole('link', { name }).waitFor();
    expect(await page.locator('main img').count()).toBe(0);
    await page.goto(teamUrl(id));
    expect(await page.locator('main img').count()).toBe(0);
    expect(dialogs).toBe(0);
  });

  it('refuses a form without the CSRF token, and shows a stranger no team', async () => {
    const [owner, stranger] = await Promise.all([user('teams-csrf'), user('teams-stranger')]);
    const team = await teamOf(owner);
    const page = await signedIn(owner);
    const forgedSlug = slug('forged');
    const response = await page.request.post(`${api.issuer}/account/teams`, { form: { name: 'Forged', slug: forgedSlug } });
    expect(response.status()).toBe(400);
    expect(await findTeamBySlug(api.deps.store, forgedSlug)).toBeNull();

    const other = await signedIn(stranger);
    const opened = await other.goto(teamUrl(team.id));
    expect(opened?.status()).toBe(404);
    expect(await other.getByRole('alert').textContent()).toContain('no such team');
    expect(await other.getByText(team.slug).count()).toBe(0);
    const csrf = await other.evaluate(() => fetch('/account').then(async (r) => /name="csrf" value="([^"]+)"/.exec(await r.text())?.[1] ?? ''));
    const posted = await other.request.post(`${teamUrl(team.id)}/members`, { form: { csrf, user: stranger.email, role: 'owner' } });
    expect(posted.status()).toBe(404);
    expect(await findMember(api.deps.store, team.id, stranger.id)).toBeNull();
  });

  it('refuses malformed forms with a page, never a 500', async () => {
    const owner = await user('teams-malformed');
    const team = await teamOf(owner);
    const page = await signedIn(owner);
    await page.goto(teamUrl(team.id));
    const csrf = await page.locator('input[name=csrf]').first().inputValue();
    const base = teamUrl(team.id);
    const cases: [string, string, number][] = [
      [`${api.issuer}/account/teams`, '', 400],
      [`${api.issuer}/account/teams`, 'name=a&name=b&slug=UPPER&parent_id=not%20an%20id', 400],
      [`${api.issuer}/account/teams`, `name=x&slug=${slug('p')}&parent_id=00000000-0000-0000-0000-000000000000`, 404],
      [`${base}/settings`, `name=x&slug=${team.slug}&parent_id=${team.id}`, 400],
      [`${base}/settings`, 'description=' + 'd'.repeat(600), 400],
      [`${base}/members`, 'user=&role=emperor', 400],
      [`${base}/members`, `user=${'x'.repeat(400)}&role=member`, 400],
      [`${base}/invitations/bad$id/revoke`, '', 400],
      [`${base}/invitations/no-such-invitation/revoke`, '', 404],
      [`${api.issuer}/account/teams/invitations/bad$id/accept`, '', 400],
      [`${api.issuer}/account/teams/invitations/no-such-invitation/accept`, '', 404],
      [`${api.issuer}/account/teams/invitations/no-such-invitation/decline`, '', 404],
      [`${base}/members/${owner.id}`, 'set_groups=1&groups=Not%20A%20Slug', 400],
      [`${base}/members/${owner.id}`, 'set_groups=1&groups=missing', 400],
      [`${base}/members/someone-else`, 'role=admin', 404],
      [`${base}/members/${owner.id}`, 'role=member', 409],
      [`${base}/groups`, 'slug=a&slug=b', 400],
      [`${base}/groups/nope/remove`, '', 404],
      [`${base}/groups/%ZZ/remove`, '', 400],
      [`${base}/delete`, 'confirm=a&confirm=b&cascade=1', 400],
    ];
    for (const [url, body, expected] of cases) {
      const response = await page.request.post(url, {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        data: `csrf=${encodeURIComponent(csrf)}${body ? `&${body}` : ''}`,
      });
      expect([url, body, response.status()]).toEqual([url, body, expected]);
      expect(response.headers()['content-type']).toContain('text/html');
    }
    expect(await findTeam(api.deps.store, team.id)).toMatchObject({ slug: team.slug, parentId: null, description: '' });
  });
});
