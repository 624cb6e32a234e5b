// Sudo mode paths of the step-up confirmation page (/oauth/2fa) in headless
// Chromium, beyond the opt-in + sudo confirmation of
// step-up-sudo-browser.test.ts (HTTP versions: step-up-sudo.test.ts):
// - POST /api/oauth/2fa/sudo/revoke (Bearer access token of the browser's
//   session) ends the window: the next challenge shows the factor form again;
// - sudo_mode_ttl_minutes = 0: no opt-in offered, no window opened (also when
//   the setting turns 0 between page load and submit, or while a window is open);
// - signing out on /account and in again: the next challenge needs a factor.
// What is asserted is what the user sees (factor inputs vs. the checkbox-only
// form, the "Don't ask again for N minutes" opt-in) and what the RP gets (its
// callback with code and state, verify's `method`).
//
// Own database: `sudo_mode_ttl_minutes` is a global site setting, and these
// tests set it (5, or 0). On a database of their own they never race another
// test file; the StepUpChallenge and SudoWindow workflows run on the api's own
// worker (startTestApi), whose activities write into the api's database.
//
// Factors: each user has TOTP (`nextTotp` never reuses a time step, and moves
// the api's clock on rather than wait when both usable steps are used) and
// backup codes (the sign-in's second factor, and the other confirmations).
import { generate } from 'otplib';
import type { Page } from 'playwright-core';
import { setSiteSetting } from '../../../lib/store/settings.js';
import { sudoWindows } from '../../../lib/store/sudo-windows.js';
import { useRpCallback, useBrowser } from '../../support/browser.js';
import { useLocalhostApi, type Json } from '../../support/harness.js';
import { apiNow, skipTime } from '../../support/clock.js';
import { newStepUpRp, type StepUpRp } from '../../support/step-up-rp.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { withPkce, withVerifier } from '../../../tools/fixtures/pkce.js';
import { testDatabase } from '../../support/database.js';

const PASSWORD = 'step-up sudo paths browser password';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const TIMEOUT = 90_000;
const ACTION = 'Rotate the signing key of "prod" <now>';
const database = testDatabase('stepup_sudo_paths_browser');

const browser = useBrowser();
const rp = useRpCallback();

const api = useLocalhostApi(database.env);

const newPage = browser.newPage;

/**
 * A user with TOTP and backup codes; `nextTotp` gives a code of a time step not
 * used before: now, or the next one (the server accepts ±30 s); when both are
 * used, the api's clock moves on a step instead of the test waiting for it.
 */
async function userWithTotp() {
  const { id, email, backupCodes } = await newUser(api.deps, { prefix: 'stepup-sudo-paths', password: PASSWORD, name: 'Sudo Paths', totpSecret: TOTP_SECRET });
  let lastStep: number | null = null;
  const nextTotp = (): Promise<string> => {
    const now = Math.floor(apiNow() / 30_000);
    const step = lastStep === null ? now : Math.max(now, lastStep + 1);
    if (step > now + 1) skipTime((step - 1) * 30_000 - apiNow());
    lastStep = step;
    return generate({ secret: TOTP_SECRET, epoch: step * 30 });
  };
  return { id, email, backupCodes, nextTotp };
}
type User = Awaited<ReturnType<typeof userWithTotp>>;

/** A confidential client registered at the RP callback, with challenge/verify helpers. */
const rpWithChallenges = (name: string) => newStepUpRp(api, rp, ACTION, { name, idTokenSignedResponseAlg: 'RS256' });
type Rp = StepUpRp;

/** Signs in on /login: password, then a backup code as the second factor (no TOTP time step used). */
async function signIn(page: Page, who: User): Promise<void> {
  await page.goto(`${api.issuer}/login`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
  await page.getByLabel('Authentication code').fill(who.backupCodes.pop()!);
  await page.getByRole('button', { name: 'Verify', exact: true }).click();
  await page.waitForURL(`${api.issuer}/account`);
}

const confirmBox = (page: Page) => page.getByLabel(`I confirm: ${ACTION}`);
const optIn = (page: Page) => page.getByText(/Don't ask again for \d+ minutes/);
const sudoForm = (page: Page) => page.locator('form[data-step-up-sudo-path]');
const codeInput = (page: Page) => page.getByLabel('Authentication code');

/** Opens a challenge and checks the page shows the factor form (code input, no checkbox-only path); returns the offered opt-in minutes (null: none). */
async function openFactorPage(page: Page, url: string): Promise<number | null> {
  await page.goto(url);
  await page.getByRole('heading', { name: 'Confirm an action' }).waitFor();
  await expect(codeInput(page).count()).resolves.toBe(1);
  await expect(sudoForm(page).count()).resolves.toBe(0);
  if ((await optIn(page).count()) === 0) return null;
  return Number(/(\d+) minutes/.exec((await optIn(page).textContent())!)![1]);
}

/** Opens a challenge and checks the page shows the checkbox-only sudo form (no code input, no opt-in). */
async function openSudoPage(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.getByRole('heading', { name: 'Confirm an action' }).waitFor();
  await expect(sudoForm(page).count()).resolves.toBe(1);
  await expect(codeInput(page).count()).resolves.toBe(0);
  await expect(optIn(page).count()).resolves.toBe(0);
}

/**
 * On the factor form: ticks the box (and the opt-in when asked), enters a code
 * (TOTP, or a backup code), confirms; the RP gets code + state and verify says which factor.
 */
async function confirmWithFactor(page: Page, client: Rp, who: User, state: string, opts: { optIn?: boolean; factor?: 'totp' | 'backup' } = {}): Promise<Json> {
  const factor = opts.factor ?? 'totp';
  await confirmBox(page).check();
  if (opts.optIn) await optIn(page).check();
  await codeInput(page).fill(factor === 'totp' ? await who.nextTotp() : who.backupCodes.pop()!);
  await page.getByRole('button', { name: 'Confirm', exact: true }).click();
  const callback = await rp.nextCallback();
  expect(callback.get('error')).toBeNull();
  expect(callback.get('state')).toBe(state);
  const verified = await client.verify(callback.get('code')!);
  expect(verified).toMatchObject({ user_id: who.id, client_id: client.id, action: ACTION, method: factor });
  return verified;
}

/** On the sudo form: ticks the box and confirms; verify says `sudo`. */
async function confirmWithSudo(page: Page, client: Rp, who: User, state: string): Promise<void> {
  const confirm = page.getByRole('button', { name: 'Confirm', exact: true });
  await expect(confirm.isDisabled()).resolves.toBe(true);
  await confirmBox(page).check();
  await confirm.click();
  const callback = await rp.nextCallback();
  expect(callback.get('state')).toBe(state);
  expect(await client.verify(callback.get('code')!)).toMatchObject({ user_id: who.id, client_id: client.id, method: 'sudo' });
}

/** An access token of the browser's session (its `sid` claim): an authorization-code flow in the same browser. */
async function sessionAccessToken(page: Page, client: Rp): Promise<string> {
  await page.goto(
    `${api.issuer}/api/oauth/authorize?${new URLSearchParams(withPkce({ response_type: 'code', client_id: client.id, redirect_uri: rp.redirectUri, scope: 'openid', state: 'authz' }))}`,
  );
  if (!page.url().startsWith(rp.redirectUri)) {
    await page.getByRole('heading', { name: `Allow ${client.name}?` }).waitFor();
    await page.getByRole('button', { name: 'Allow', exact: true }).click();
  }
  const callback = await rp.nextCallback();
  expect(callback.get('state')).toBe('authz');
  const res = await fetch(`${api.issuer}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: client.basic },
    body: new URLSearchParams(withVerifier({ grant_type: 'authorization_code', code: callback.get('code')!, redirect_uri: rp.redirectUri })),
  });
  expect(res.status).toBe(200);
  const accessToken = ((await res.json()) as Json).access_token as string;
  const claims = JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString());
  expect(typeof claims.sid).toBe('string');
  return accessToken;
}

describe('sudo mode paths of the step-up page in a browser', () => {
  it(
    'after POST /api/oauth/2fa/sudo/revoke the next challenge of the client shows the factor form again and needs a factor (method totp)',
    async () => {
      await setSiteSetting(api.deps.store, 'sudo_mode_ttl_minutes', 5);
      const who = await userWithTotp();
      const client = await rpWithChallenges('Sudo revoke RP');
      const page = await newPage();
      await signIn(page, who);

      // A TOTP confirmation with "Don't ask again for 5 minutes" ticked.
      expect(await openFactorPage(page, await client.challenge('s1'))).toBe(5);
      await confirmWithFactor(page, client, who, 's1', { optIn: true });
      // The window is open: the next challenge offers the checkbox alone (left unanswered).
      await openSudoPage(page, await client.challenge('s2'));

      // The app ends the window with an access token of this browser session.
      const accessToken = await sessionAccessToken(page, client);
      const revoke = await fetch(`${api.issuer}/api/oauth/2fa/sudo/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
        body: JSON.stringify({ client_id: client.id }),
      });
      expect(revoke.status).toBe(200);
      expect(await revoke.json()).toEqual({ revoked: true });

      // The factor form again (with the opt-in offered again); the checkbox alone is not enough.
      expect(await openFactorPage(page, await client.challenge('s3'))).toBe(5);
      await confirmBox(page).check();
      await page.getByRole('button', { name: 'Confirm', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'Enter an authentication code or use a passkey.' }).waitFor();
      await expect(sudoForm(page).count()).resolves.toBe(0);
      // Not consumed: the same challenge is confirmed with a factor.
      await confirmWithFactor(page, client, who, 's3');
    },
    TIMEOUT,
  );

  it(
    'sudo_mode_ttl_minutes = 0: no opt-in is offered, and after a factor confirmation the next challenge asks a factor again',
    async () => {
      await setSiteSetting(api.deps.store, 'sudo_mode_ttl_minutes', 0);
      const who = await userWithTotp();
      const client = await rpWithChallenges('Sudo off RP');
      const page = await newPage();
      await signIn(page, who);

      expect(await openFactorPage(page, await client.challenge('s1'))).toBeNull();
      await confirmWithFactor(page, client, who, 's1');
      expect(await openFactorPage(page, await client.challenge('s2'))).toBeNull();
      await confirmWithFactor(page, client, who, 's2');
      expect(await sudoWindows(api.deps.store).countDocuments({ userId: who.id })).toBe(0);

      // A page loaded while sudo mode was on, submitted after it was turned off: the opt-in opens nothing.
      await setSiteSetting(api.deps.store, 'sudo_mode_ttl_minutes', 5);
      expect(await openFactorPage(page, await client.challenge('s3'))).toBe(5);
      await setSiteSetting(api.deps.store, 'sudo_mode_ttl_minutes', 0);
      await confirmWithFactor(page, client, who, 's3', { optIn: true, factor: 'backup' });
      expect(await sudoWindows(api.deps.store).countDocuments({ userId: who.id })).toBe(0);
      expect(await openFactorPage(page, await client.challenge('s4'))).toBeNull();
      await confirmWithFactor(page, client, who, 's4', { factor: 'backup' });
    },
    TIMEOUT,
  );

  it(
    'sudo_mode_ttl_minutes = 0 while a window is open: the factor form without the opt-in; back above 0, the window applies again',
    async () => {
      await setSiteSetting(api.deps.store, 'sudo_mode_ttl_minutes', 5);
      const who = await userWithTotp();
      const client = await rpWithChallenges('Sudo paused RP');
      const page = await newPage();
      await signIn(page, who);
      expect(await openFactorPage(page, await client.challenge('s1'))).toBe(5);
      await confirmWithFactor(page, client, who, 's1', { optIn: true });

      await setSiteSetting(api.deps.store, 'sudo_mode_ttl_minutes', 0);
      expect(await openFactorPage(page, await client.challenge('s2'))).toBeNull();
      await confirmWithFactor(page, client, who, 's2', { factor: 'backup' });

      // The window itself was not ended by the setting.
      await setSiteSetting(api.deps.store, 'sudo_mode_ttl_minutes', 5);
      await openSudoPage(page, await client.challenge('s3'));
      await confirmWithSudo(page, client, who, 's3');
    },
    TIMEOUT,
  );

  it(
    'signing out on /account and in again in the same browser ends sudo: the next challenge of the client needs a factor',
    async () => {
      await setSiteSetting(api.deps.store, 'sudo_mode_ttl_minutes', 5);
      const who = await userWithTotp();
      const client = await rpWithChallenges('Sudo sign-out RP');
      const page = await newPage();
      await signIn(page, who);

      expect(await openFactorPage(page, await client.challenge('s1'))).toBe(5);
      await confirmWithFactor(page, client, who, 's1', { optIn: true });
      await openSudoPage(page, await client.challenge('s2'));
      await confirmWithSudo(page, client, who, 's2');

      await page.goto(`${api.issuer}/account`);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
      await signIn(page, who);

      expect(await openFactorPage(page, await client.challenge('s3'))).toBe(5);
      await confirmWithFactor(page, client, who, 's3');
      // No opt-in this time: still the factor form.
      expect(await openFactorPage(page, await client.challenge('s4'))).toBe(5);
    },
    TIMEOUT,
  );
});
