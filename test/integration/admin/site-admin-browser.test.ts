// Site scopes end to end, in headless Chromium with oauth4webapi as the RP:
// a site admin grants `site:user:read site:token:revoke` to a third-party app
// after an authenticator code and the typed phrase; the app then finds a user
// through the admin users API and revokes all their tokens, after which that
// user's refresh token and access token fail. A non-admin, an admin without a
// second factor and a wrong phrase do not get the scopes; neither does the
// device flow.
import * as oauth from 'oauth4webapi';
import { authorization as libraryAuthorization, discover, redeemAtCallback, type Authorization } from '../../support/library-rp.js';
import { generate, generateSecret } from 'otplib';
import type { Page } from 'playwright-core';
import { ADMIN_API } from '../../../lib/model/admin-access.js';
import { newRp } from '../../../tools/fixtures/clients.js';
import { newUser, type FixtureUser } from '../../../tools/fixtures/users.js';
import { type RpCallback, startRpCallback, useBrowser } from '../../support/browser.js';
import { useLocalhostApi, type Json } from '../../support/harness.js';
import { FLOW_PASSWORD, newTestRp, runCodeFlow } from '../../support/token-flow.js';
import { postForm } from '../../support/http.js';

const TIMEOUT = 90_000;
const SITE_SCOPES = 'openid site:user:read site:token:revoke';

const browser = useBrowser();
let rpCallback: RpCallback;
let as: oauth.AuthorizationServer;
let client: oauth.Client;
let clientAuth: oauth.ClientAuth;

const api = useLocalhostApi();
beforeAll(async () => {
  rpCallback = await startRpCallback();
  as = await discover(api.issuer);
  const rp = await newRp(api.deps, {
    name: 'Site console app',
    redirectUris: [{ type: 'equals', value: rpCallback.redirectUri }],
    allowedScopes: ['openid', 'site:user:read', 'site:token:revoke'],
    idTokenSignedResponseAlg: 'RS256',
  });
  client = { client_id: rp.id, id_token_signed_response_alg: 'RS256' };
  clientAuth = oauth.ClientSecretBasic(rp.secret!);
}, TIMEOUT);
afterAll(async () => {
  await rpCallback?.close();
});
afterEach(async () => {
  await browser.closeAll();
});

const newPage = browser.newPage;

const authorization = (scope: string) => libraryAuthorization(as, client, rpCallback, scope);
const redeem = (a: Authorization) => redeemAtCallback(as, client, clientAuth, rpCallback, a);

/** Opens the authorization URL and signs in (with a backup code as second step when the user has TOTP). */
async function signInFor(page: Page, a: Authorization, u: FixtureUser): Promise<void> {
  await page.goto(a.url);
  await page.getByLabel('Email').fill(u.email);
  await page.getByLabel('Password').fill(FLOW_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  if (u.backupCodes.length) {
    await page.getByLabel('Authentication code').fill(u.backupCodes[0]!);
    await page.getByRole('button', { name: 'Verify' }).click();
  }
}

const adminApi = (token: string, path: string, method = 'GET') =>
  fetch(`${api.issuer}${ADMIN_API}${path}`, { method, headers: { authorization: `Bearer ${token}` } });

describe('an app with site scopes', () => {
  it(
    'is granted site:user:read site:token:revoke after an authenticator code and the phrase, finds a user and revokes their tokens',
    async () => {
      const secret = generateSecret();
      const siteAdmin = await newUser(api.deps, { prefix: 'site-admin', password: FLOW_PASSWORD, admin: true, totpSecret: secret });
      // Someone using another app, with a refresh token and an access token.
      const other = await newTestRp(api);
      const victim = await runCodeFlow(api, other, 'openid offline_access');
      expect(victim.tokens.refresh_token).toEqual(expect.any(String));

      const page = await newPage();
      const a = await authorization(SITE_SCOPES);
      await signInFor(page, a, siteAdmin);
      await page.locator('fieldset.site-gate').waitFor();
      await page.getByLabel('Authenticator or backup code').fill(await generate({ secret }));
      await page.getByLabel('Type “grant site access”').fill('grant site access');
      await page.getByRole('button', { name: 'Allow' }).click();
      const tokens = await redeem(a);
      expect(tokens.scope).toBe(SITE_SCOPES);

      // The app finds the user…
      const found = await adminApi(tokens.access_token, `/users?q=${encodeURIComponent(victim.email)}`);
      expect(found.status).toBe(200);
      const users = ((await found.json()) as Json).users as Json[];
      expect(users.map((u) => [u.id, u.email])).toEqual([[victim.user._id, victim.email]]);
      // …may not change them (no site:user:write)…
      const patch = await fetch(`${api.issuer}${ADMIN_API}/users/${victim.user._id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Changed' }),
      });
      expect(patch.status).toBe(403);
      expect(((await patch.json()) as Json).error).toBe('insufficient_scope');
      // …and revokes every token they hold.
      const revoked = await adminApi(tokens.access_token, `/users/${victim.user._id}/revoke-tokens`, 'POST');
      expect(revoked.status).toBeLessThan(300);

      const refresh = await postForm(
        api,
        '/api/oauth/token',
        { grant_type: 'refresh_token', refresh_token: victim.tokens.refresh_token as string },
        other.auth,
      );
      expect([refresh.res.status, refresh.body?.error]).toEqual([400, 'invalid_grant']);
      const userinfo = await fetch(`${api.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${victim.tokens.access_token as string}` } });
      expect(userinfo.status).toBe(401);
    },
    TIMEOUT,
  );

  it(
    'is not granted them by a non-admin, by an admin without a second factor, or with a wrong phrase',
    async () => {
      // A user who is not a site admin: the RP gets invalid_scope back.
      const plain = await newUser(api.deps, { prefix: 'site-plain', password: FLOW_PASSWORD });
      let page = await newPage();
      const a = await authorization(SITE_SCOPES);
      await signInFor(page, a, plain);
      const refused = await rpCallback.nextCallback();
      expect([refused.get('error'), refused.has('code')]).toEqual(['invalid_scope', false]);

      // An admin with no second factor: the gate has no Allow button.
      const noFactor = await newUser(api.deps, { prefix: 'site-nofactor', password: FLOW_PASSWORD, admin: true });
      page = await newPage();
      await signInFor(page, await authorization(SITE_SCOPES), noFactor);
      await page.getByText('Set up a second factor').first().waitFor();
      expect(await page.getByRole('button', { name: 'Allow' }).count()).toBe(0);

      // An admin with TOTP and a wrong phrase: refused, no code reaches the RP.
      const secret = generateSecret();
      const admin = await newUser(api.deps, { prefix: 'site-phrase', password: FLOW_PASSWORD, admin: true, totpSecret: secret });
      page = await newPage();
      await signInFor(page, await authorization(SITE_SCOPES), admin);
      await page.locator('fieldset.site-gate').waitFor();
      await page.getByLabel('Authenticator or backup code').fill(await generate({ secret }));
      await page.getByLabel('Type “grant site access”').fill('grant site access please');
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.getByText('Type exactly').first().waitFor();
      expect(page.url()).toContain('/consent');
    },
    TIMEOUT,
  );

  it('is refused site scopes through the device flow', async () => {
    const rp = await newTestRp(api, { allowedScopes: ['openid', 'site:user:read', 'site:token:revoke'] });
    const { res, body } = await postForm(api, '/api/oauth/device_authorization', { scope: SITE_SCOPES }, rp.auth);
    expect([res.status, body?.error]).toEqual([400, 'invalid_scope']);
  });
});
