// The step-up captcha gate in headless Chromium: provider `pow` (difficulty 8),
// the page's Web Worker (/assets/captcha.js + /assets/pow-worker.js) solves the
// proof of work with its role="status" progress, and the user confirms with
// TOTP; the relying party gets code and state, and verify answers method totp.
//
// Site settings are global per database: this file's api uses a database of
// its own (the StepUpChallenge workflow writes its projection into the api's
// database), with provider `pow`, difficulty 8, the site gate off and the
// challenge asking `require_captcha: true`.
import { generate } from 'otplib';
import { createClient } from '../../../lib/store/clients.js';
import { setSiteSetting } from '../../../lib/store/settings.js';
import { createUser } from '../../../lib/store/users.js';
import { type RpCallback, startRpCallback, useBrowser } from '../../support/browser.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { enrollFactors } from '../../../tools/fixtures/factors.js';
import { testDatabase } from '../../support/database.js';

const PASSWORD = 'captcha browser password';
const TIMEOUT = 90_000;
const ACTION = 'Rotate the production keys';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

const browser = useBrowser();
let rp: RpCallback;

const api = useTestApi(testDatabase('captcha_browser').env);
beforeAll(async () => {
  await setSiteSetting(api.deps.store, 'captcha_provider', 'pow');
  await setSiteSetting(api.deps.store, 'pow_difficulty', 8);
  rp = await startRpCallback();
});
afterAll(async () => {
  await rp?.close();
});

it(
  'solves the proof of work in a Web Worker and confirms with TOTP',
  async () => {
    const email = uniqueEmail('captcha-browser');
    const user = await createUser(api.deps.store, { email, password: PASSWORD, name: 'Captcha Browser' });
    const backupCodes = await enrollFactors(api.deps.store, api.deps.kek, user._id, TOTP_SECRET);
    const { client, clientSecret } = await createClient(api.deps.store, {
      name: 'Captcha RP',
      redirectUris: [{ type: 'equals', value: rp.redirectUri }],
      allowedScopes: ['openid'],
      isVerified: true,
    });
    const basic = `Basic ${Buffer.from(`${client._id}:${clientSecret}`).toString('base64')}`;
    const created = await fetch(`${api.issuer}/api/oauth/2fa/challenges`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basic },
      body: JSON.stringify({ redirect_uri: rp.redirectUri, action: ACTION, nonce: 'pow-nonce', state: 'pow-state', require_captcha: true }),
    });
    expect(created.status).toBe(201);
    const { url } = (await created.json()) as Json;

    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForURL(/\/login/);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(/\/login\/second-factor/);
    await page.locator('input[name="code"]').fill(backupCodes[0]!);
    await page.locator('form[action="/login/second-factor"] button[type="submit"]').first().click();

    await page.getByRole('heading', { name: 'Confirm an action' }).waitFor();
    // The worker reports and finishes: the status shows the nonces tried, the hidden fields are filled.
    await page.locator('[data-pow-done="yes"]').waitFor({ state: 'attached', timeout: 30_000 });
    await expect(page.getByRole('status').textContent()).resolves.toMatch(/Browser check done \(\d+ tried\)/);
    await expect(page.locator('input[name="pow_nonce"]').inputValue()).resolves.toMatch(/^\d+$/);

    await page.getByLabel(`I confirm: ${ACTION}`).check();
    await page.locator('#code').fill(await generate({ secret: TOTP_SECRET, epoch: Math.floor(Date.now() / 1000) }));
    await page.getByRole('button', { name: 'Confirm', exact: true }).click();
    const query = await rp.nextCallback();
    expect(query.get('state')).toBe('pow-state');
    const code = query.get('code')!;
    expect(code).toEqual(expect.any(String));

    const verified = await fetch(`${api.issuer}/api/oauth/2fa/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
      body: new URLSearchParams({ code, redirect_uri: rp.redirectUri }),
    });
    expect(verified.status).toBe(200);
    expect(await verified.json()).toMatchObject({ method: 'totp', action: ACTION, nonce: 'pow-nonce', user_id: user._id });
  },
  TIMEOUT,
);
