// The team picker and the site-scope gate at consent, in headless Chromium,
// with an RP library no one here wrote (oauth4webapi) on the other side: the
// user picks a team they manage through a parent team, the token is bound to
// it and works on that team's API only; the page words each permission and
// escapes team names; a site admin passes the gate with a passkey and the
// typed phrase; Deny on the picker sends access_denied back.
import * as oauth from 'oauth4webapi';
import { authorization as libraryAuthorization, discover, redeemAtCallback, type Authorization } from '../../support/library-rp.js';
import type { Page } from 'playwright-core';
import type { TeamDoc } from '../../../lib/model/teams.js';
import { auditRecords } from '../../support/audit.js';
import { findMember } from '../../../lib/store/teams.js';
import { createTeam, userActor, type TeamDeps } from '../../../lib/teams/team-changes.js';
import { joinTeam } from '../../support/teams.js';
import { acceptInvitation } from '../../../lib/teams/invitations.js';
import { newRp, type FixtureRp } from '../../../tools/fixtures/clients.js';
import { newUser, type FixtureUser } from '../../../tools/fixtures/users.js';
import { addPasskey, addVirtualAuthenticator, type RpCallback, startRpCallback, useBrowser } from '../../support/browser.js';
import { useLocalhostApi, type Json } from '../../support/harness.js';
import { jwtClaims } from '../../support/http.js';

const PASSWORD = 'team picker browser password';
const TIMEOUT = 90_000;
const TEAM_SCOPES = 'openid team:read team:member:read team:member:write';

let deps: TeamDeps;
const browser = useBrowser();
let rpCallback: RpCallback;
let as: oauth.AuthorizationServer;

const actor = (u: FixtureUser) => userActor(u.id, { type: 'user', userId: u.id });
const slug = (p: string) => `${p}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;
const newTeam = (owner: FixtureUser, name: string, parent: TeamDoc | null = null) =>
  createTeam(deps, actor(owner), { name, slug: slug('t'), description: '', parent_id: parent?._id ?? null, member_groups_enabled: false });

const api = useLocalhostApi();
beforeAll(async () => {
  deps = api.deps;
  rpCallback = await startRpCallback();
  as = await discover(api.issuer);
});
afterAll(async () => {
  await rpCallback?.close();
});
afterEach(async () => {
  await browser.closeAll();
});

const newPage = browser.newPage;

async function registeredRp(allowedScopes: string[]): Promise<{ rp: FixtureRp; client: oauth.Client; auth: oauth.ClientAuth }> {
  const rp = await newRp(api.deps, {
    name: 'Team picker RP',
    redirectUris: [{ type: 'equals', value: rpCallback.redirectUri }],
    allowedScopes,
    idTokenSignedResponseAlg: 'RS256',
  });
  return { rp, client: { client_id: rp.id, id_token_signed_response_alg: 'RS256' }, auth: oauth.ClientSecretBasic(rp.secret!) };
}

const authorization = (client: oauth.Client, scope: string) => libraryAuthorization(as, client, rpCallback, scope);

/** Signs in on the sign-in page the browser is on. */
async function signIn(page: Page, u: FixtureUser): Promise<void> {
  await page.getByLabel('Email').fill(u.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** The RP's side once the browser came back: oauth4webapi checks state and iss, redeems the code and validates the ID token. */
async function redeem(client: oauth.Client, auth: oauth.ClientAuth, a: Authorization): Promise<{ tokens: oauth.TokenEndpointResponse; idClaims: Json }> {
  const tokens = await redeemAtCallback(as, client, auth, rpCallback, a);
  return { tokens, idClaims: oauth.getValidatedIdTokenClaims(tokens)! };
}

describe('the team picker in a browser', () => {
  let owner: FixtureUser;
  let admin: FixtureUser; // admin of A, hence admin of its child B by inheritance
  let a: TeamDoc, b: TeamDoc;

  beforeAll(async () => {
    owner = await newUser(api.deps, { prefix: 'picker-owner', password: PASSWORD });
    admin = await newUser(api.deps, { prefix: 'picker-admin', password: PASSWORD });
    a = await newTeam(owner, 'Alpha');
    b = await newTeam(owner, 'Bravo', a);
    await joinTeam(deps, owner, a._id, admin, 'admin');
  });

  it(
    'binds the token to the team picked (inherited admin): that team only, never above the role',
    async () => {
      const { client, auth } = await registeredRp(['openid', 'team:read', 'team:member:read', 'team:member:write']);
      const req = await authorization(client, TEAM_SCOPES);
      const page = await newPage();
      await page.goto(req.url);
      await signIn(page, admin);
      const picker = page.locator('fieldset.team-picker');
      await picker.waitFor();
      const radios = picker.locator('input[type="radio"][name="team"]');
      expect((await radios.evaluateAll((els) => els.map((e) => e.getAttribute('value')))).sort()).toEqual([a._id, b._id].sort());
      const bravo = picker.getByRole('radio', { name: /Bravo/ });
      expect(await picker.locator('label', { hasText: 'Bravo' }).textContent()).toMatch(/you are admin through a parent team/);
      await bravo.check();
      await page.getByRole('button', { name: 'Allow' }).click();

      const { tokens, idClaims } = await redeem(client, auth, req);
      const scope = tokens.scope!.split(' ').sort();
      expect(scope).toEqual(['openid', `team:${b._id}:member:read`, `team:${b._id}:member:write`, `team:${b._id}:read`].sort());
      expect(jwtClaims(tokens.access_token).scope).not.toMatch(/(^| )team:(read|member:read|member:write)( |$)/);
      // The ID token names the bound team only, with the inherited role.
      expect(Object.keys(idClaims).filter((k) => k.includes('_team_'))).toEqual([`in_team_${b._id}`, `role_in_team_${b._id}`]);
      expect(idClaims[`role_in_team_${b._id}`]).toBe('admin');

      const call = (path: string, init: RequestInit = {}) =>
        fetch(`${api.issuer}/api/oauth/me/team/${path}`, { ...init, headers: { ...init.headers, authorization: `Bearer ${tokens.access_token}` } });
      const team = await call(b._id);
      expect(team.status).toBe(200);
      expect(await team.json()).toMatchObject({ id: b._id, name: 'Bravo', parent_id: a._id, role: 'admin', inherited: true });
      const members = await call(`${b._id}/members`);
      expect(members.status).toBe(200);
      expect(((await members.json()) as Json).members).toEqual([expect.objectContaining({ user_id: owner.id, role: 'owner' })]);

      // Team A: the user manages it too, but the token is not bound to it.
      for (const path of [a._id, `${a._id}/members`]) {
        const refused = await call(path);
        expect([path, refused.status]).toEqual([path, 403]);
        expect(((await refused.json()) as Json).error).toBe('insufficient_scope');
        expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer .*error="insufficient_scope"/);
        expect(refused.headers.get('www-authenticate')).toContain(`team:${a._id}:`);
      }

      // member:write, capped at the user's own role (admin).
      const newcomer = await newUser(api.deps, { prefix: 'picker-newcomer', password: PASSWORD });
      const add = (role: string) =>
        call(`${b._id}/members`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: newcomer.email, role }) });
      const asOwner = await add('owner');
      expect(asOwner.status).toBe(403);
      expect(await findMember(api.deps.store, b._id, newcomer.id)).toBeNull();
      // An invitation, as any user's: the newcomer is a member once they accept it.
      const asMember = await add('member');
      expect(asMember.status).toBe(202);
      const invitation = (await asMember.json()) as Json;
      expect(invitation).toMatchObject({ user: newcomer.email, role: 'member', invited_by: admin.id });
      expect(await findMember(api.deps.store, b._id, newcomer.id)).toBeNull();
      await acceptInvitation(deps, newcomer.id, invitation.id, { type: 'user', userId: newcomer.id });
      expect((await findMember(api.deps.store, b._id, newcomer.id))?.role).toBe('member');
      const elsewhere = await call(`${a._id}/members`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user: newcomer.email, role: 'member' }),
      });
      expect(elsewhere.status).toBe(403);
      expect(await findMember(api.deps.store, a._id, newcomer.id)).toBeNull();
    },
    TIMEOUT,
  );

  it(
    'says in plain words what each permission allows, and escapes a team name with markup',
    async () => {
      const marked = await newTeam(admin, '<img src=x onerror="window.__injected=1"><b>Bold</b> & co');
      const { client } = await registeredRp(['openid', 'team:read', 'team:member:read', 'team:member:write']);
      const page = await newPage();
      await page.goto((await authorization(client, TEAM_SCOPES)).url);
      await signIn(page, admin);
      const items = page.locator('ul.scopes li');
      await items.first().waitFor();
      const texts = await items.allTextContents();
      expect(texts).toEqual([
        expect.stringContaining('(openid)'),
        expect.stringMatching(/^See the team you pick: its name, settings and groups \(team:read\)$/),
        expect.stringMatching(/^See who belongs to the team you pick, with their roles and groups \(team:member:read\)$/),
        expect.stringMatching(/^Add, change and remove members of the team you pick, never above your own role \(team:member:write\)$/),
      ]);
      const label = page.locator('fieldset.team-picker label').filter({ has: page.locator(`input[value="${marked._id}"]`) });
      expect(await label.textContent()).toContain('<img src=x onerror="window.__injected=1"><b>Bold</b> & co');
      expect(await page.locator('fieldset.team-picker img, fieldset.team-picker b').count()).toBe(0);
      expect(await page.evaluate('typeof window.__injected')).toBe('undefined');
      expect(await page.title()).toMatch(/^Allow Team picker RP\?/);
    },
    TIMEOUT,
  );

  it(
    'Deny on the picker sends access_denied to the RP, with its state and no code',
    async () => {
      const { client } = await registeredRp(['openid', 'team:read']);
      const req = await authorization(client, 'openid team:read');
      const page = await newPage();
      await page.goto(req.url);
      await signIn(page, admin);
      await page.locator('fieldset.team-picker').waitFor();
      await page.getByRole('radio', { name: /Bravo/ }).check();
      await page.getByRole('button', { name: 'Deny' }).click();
      const back = await rpCallback.nextCallback();
      expect(back.get('error')).toBe('access_denied');
      expect(back.get('state')).toBe(req.state);
      expect(back.get('iss')).toBe(api.issuer);
      expect(back.has('code')).toBe(false);
    },
    TIMEOUT,
  );
});

describe('the site-scope gate in a browser', () => {
  it(
    'grants site:team:read after a passkey and the typed phrase, and audits the passkey; Deny needs nothing typed',
    async () => {
      const siteAdmin = await newUser(api.deps, { prefix: 'site-passkey', password: PASSWORD, admin: true });
      const stranger = await newUser(api.deps, { prefix: 'site-stranger', password: PASSWORD });
      const foreign = await newTeam(stranger, 'Not the admin’s team');
      const { client, auth } = await registeredRp(['openid', 'site:team:read']);

      const page = await newPage();
      await addVirtualAuthenticator(page);
      await page.goto(`${api.issuer}/login`);
      await signIn(page, siteAdmin);
      await page.waitForURL(`${api.issuer}/account`);
      await addPasskey(page, api.issuer, 'Laptop');

      const req = await authorization(client, 'openid site:team:read');
      await page.goto(req.url);
      const gate = page.locator('fieldset.site-gate');
      await gate.waitFor();
      // A passkey only: no code field to type into.
      expect(await page.locator('#code').count()).toBe(0);
      const allow = page.getByRole('button', { name: 'Allow' });
      const alert = page.locator('p.error[role="alert"]:not([hidden])');

      // Without the phrase, the browser does not even send the form: it says the field is needed.
      const posts: string[] = [];
      page.on('request', (r) => {
        if (r.method() === 'POST') posts.push(r.url());
      });
      const consentUrl = page.url();
      await allow.click();
      expect(await page.evaluate(`document.getElementById('confirmation').validationMessage`)).not.toBe('');
      expect([page.url(), posts]).toEqual([consentUrl, []]);
      // The phrase without the second factor: refused by the server.
      await page.locator('#confirmation').fill('grant site access');
      await allow.click();
      await expect(alert.textContent()).resolves.toMatch(/Confirm with your second factor/);

      await gate.getByRole('button', { name: 'Confirm with a passkey' }).click();
      await page.getByText('Passkey confirmed.').waitFor();
      expect(await gate.getByRole('button', { name: 'Confirm with a passkey' }).count()).toBe(0);

      // A wrong phrase after the passkey: refused, the passkey still counts.
      await page.locator('#confirmation').fill('Grant site access');
      await allow.click();
      await expect(alert.textContent()).resolves.toMatch(/Type exactly “grant site access”/);
      await page.getByText('Passkey confirmed.').waitFor();

      await page.locator('#confirmation').fill('grant site access');
      await allow.click();
      const { tokens } = await redeem(client, auth, req);
      expect(tokens.scope).toBe('openid site:team:read');

      const listed = await fetch(`${api.issuer}/api/oauth/site/teams?limit=500`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      expect(listed.status).toBe(200);
      expect(((await listed.json()) as Json).teams).toEqual(expect.arrayContaining([expect.objectContaining({ id: foreign._id, name: foreign.name })]));

      const records = await auditRecords(api.deps.store, { event: 'site.scope.grant', 'data.grant_id': jwtClaims(tokens.access_token).grant_id });
      expect(records.map((r) => r.data)).toEqual([
        expect.objectContaining({ user_id: siteAdmin.id, client_id: client.client_id, scopes: ['site:team:read'], second_factor: 'passkey' }),
      ]);

      // Deny on the gate's page with nothing typed: the phrase field does not hold it back.
      const refused = await authorization(client, 'openid site:team:read');
      await page.goto(refused.url);
      await gate.waitFor();
      await page.getByRole('button', { name: 'Deny' }).click();
      const back = await rpCallback.nextCallback();
      expect([back.get('error'), back.get('state'), back.has('code')]).toEqual(['access_denied', refused.state, false]);
    },
    TIMEOUT,
  );
});
