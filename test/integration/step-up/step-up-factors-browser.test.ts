// Step-up 2FA confirmation (/oauth/2fa) in headless Chromium, for the paths the
// HTTP tests (step-up.test.ts, captcha.test.ts) cover without a browser: a
// backup code as the factor (method backup, single use), a failed factor that
// consumes the challenge, an unticked checkbox forced past the disabled button
// (refused, not consumed), a third-party captcha answered by a local fake
// verify server, and the site-wide captcha gate (proof of work) for a challenge
// that asked for none. Each test asserts what the user and the relying party
// observe: the page, the redirect to the RP callback, verify's JSON.
//
// The captcha tests change the site settings, which are global per database:
// this file runs its api on a database of its own so it never races other
// test files (the StepUpChallenge workflow writes its projection there too).
import { generate } from 'otplib';
import type { Page } from 'playwright-core';
import type { SiteSettings } from '../../../lib/model/site-settings.js';
import { type RpCallback, startRpCallback, useBrowser } from '../../support/browser.js';
import { useLocalhostApi, eventually, type Json } from '../../support/harness.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { newRp } from '../../../tools/fixtures/clients.js';
import { testDatabase } from '../../support/database.js';
import { setCaptchaSettings, startFakeCaptchaProvider, type FakeCaptchaProvider } from '../../support/captcha.js';

const PASSWORD = 'step-up factors browser password';
const TIMEOUT = 90_000;
const ACTION = 'Close the account "zephyr" & archive <everything>';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const GONE = 'This confirmation request has expired or was already answered. Go back to the application and start again.';
const CAPTCHA_SECRET = 'fake-captcha-secret';
const GOOD_TOKEN = 'good-captcha-token';

const browser = useBrowser();
let fake: FakeCaptchaProvider | undefined;
let fakeUrl: string;
/** Form bodies the fake captcha verify server received. */
let verifyCalls: URLSearchParams[] = [];
const rps: RpCallback[] = [];

/** Sets the captcha settings: everything off unless given (sudo mode too). */
const settings = (values: Partial<SiteSettings> = {}) => setCaptchaSettings(api.deps, { sudo_mode_ttl_minutes: 0, ...values });

const api = useLocalhostApi(testDatabase('stepup_factors_browser').env, { beforeStop: () => settings() });
beforeAll(async () => {
  await settings();
  // A captcha provider's verify endpoint: GOOD_TOKEN with the right secret passes, anything else fails.
  fake = await startFakeCaptchaProvider(CAPTCHA_SECRET, GOOD_TOKEN);
  fakeUrl = fake.url;
  verifyCalls = fake.calls;
});
afterAll(async () => {
  await Promise.all(rps.splice(0).map((r) => r.close()));
  await fake?.close();
});

/** A relying party of its own per test (its callback queue is not shared), registered with Keyflow. */
async function newCallbackRp() {
  const callback = await startRpCallback();
  rps.push(callback);
  const { id, basic } = await newRp(api.deps, {
    name: 'Factors RP',
    redirectUris: [{ type: 'equals', value: callback.redirectUri }],
    allowedScopes: ['openid'],
    isVerified: true,
  });
  return { callback, clientId: id, basic };
}
type Rp = Awaited<ReturnType<typeof newCallbackRp>>;

async function createChallenge(rp: Rp, fields: Record<string, unknown> = {}): Promise<{ challenge_id: string; url: string }> {
  const res = await fetch(`${api.issuer}/api/oauth/2fa/challenges`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: rp.basic },
    body: JSON.stringify({ redirect_uri: rp.callback.redirectUri, action: ACTION, nonce: 'factors-nonce', ...fields }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as Json;
}

async function verify(rp: Rp, code: string): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${api.issuer}/api/oauth/2fa/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: rp.basic },
    body: new URLSearchParams({ code, redirect_uri: rp.callback.redirectUri }),
  });
  return { status: res.status, body: await res.json() };
}

/** A user with an authenticator app (sealed directly into the store) and backup codes. */
const USER = { prefix: 'stepup-factors', password: PASSWORD, name: 'Factors Browser', totpSecret: TOTP_SECRET };
type Who = Awaited<ReturnType<typeof newUser>>;

const totpAt = (offsetSeconds = 0) => generate({ secret: TOTP_SECRET, epoch: Math.floor(Date.now() / 1000) + offsetSeconds });
/** A 6-digit code that is none of the codes accepted now (previous, current and next time step). */
async function wrongTotp(): Promise<string> {
  const valid = new Set([await totpAt(-30), await totpAt(0), await totpAt(30)]);
  let n = Number(await totpAt(0));
  let code: string;
  do code = String(++n % 1_000_000).padStart(6, '0');
  while (valid.has(code));
  return code;
}

const newPage = browser.newPage;

/** Opens the challenge's url signed out, signs in on the way (password, then a backup code, so TOTP stays unused), and lands on the confirmation page. */
async function signInTo(page: Page, url: string, who: Who): Promise<void> {
  await page.goto(url);
  await page.waitForURL(/\/login/);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(/\/login\/second-factor/);
  await page.locator('input[name="code"]').fill(who.backupCodes.pop()!);
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByRole('heading', { name: 'Confirm an action' }).waitFor();
}

const confirmButton = (page: Page) => page.getByRole('button', { name: 'Confirm', exact: true });

/** Runs `act` (a submission of the confirm form) and returns the status of the form POST (for answers shown as a page). */
async function postStatus(page: Page, act: () => Promise<void>): Promise<number> {
  const response = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/oauth/2fa/authorize' && r.request().method() === 'POST');
  await act();
  const status = (await response).status();
  await page.waitForLoadState();
  return status;
}

/** The page's visible error (role="alert" with text). */
const alertText = (page: Page, text: string) => page.getByRole('alert').filter({ hasText: text });

/** No request reached the RP callback within a short while. */
async function expectNoCallback(rp: Rp): Promise<void> {
  await expect(rp.callback.nextCallback(1_500)).rejects.toThrow(/no request to the RP callback/);
}

it(
  'confirms with a backup code (method backup); the same backup code is refused on a second challenge',
  async () => {
    await settings();
    const rp = await newCallbackRp();
    const who = await newUser(api.deps, USER);
    const page = await newPage();
    const first = await createChallenge(rp, { state: 'backup-1' });
    await signInTo(page, first.url, who);

    const backupCode = who.backupCodes.pop()!;
    await page.getByLabel(`I confirm: ${ACTION}`).check();
    await page.getByLabel('Authentication code').fill(backupCode);
    await confirmButton(page).click();
    const confirmed = await rp.callback.nextCallback();
    expect(confirmed.get('state')).toBe('backup-1');
    expect(confirmed.has('error')).toBe(false);
    const code = confirmed.get('code')!;
    expect(code).toBeTruthy();
    const verified = await verify(rp, code);
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({
      user_id: who.id,
      client_id: rp.clientId,
      verified_at: expect.any(Number),
      action: ACTION,
      nonce: 'factors-nonce',
      method: 'backup',
    });

    // A second challenge (already signed in): the used backup code is a failed factor.
    const second = await createChallenge(rp, { state: 'backup-2' });
    await page.goto(second.url);
    await page.getByRole('heading', { name: 'Confirm an action' }).waitFor();
    await page.getByLabel(`I confirm: ${ACTION}`).check();
    await page.getByLabel('Authentication code').fill(backupCode);
    await confirmButton(page).click();
    const refused = await rp.callback.nextCallback();
    expect(refused.get('error')).toBe('access_denied');
    expect(refused.get('state')).toBe('backup-2');
    expect(refused.has('code')).toBe(false);
  },
  TIMEOUT,
);

it(
  'a wrong TOTP code consumes the challenge: the app gets access_denied and the challenge cannot be confirmed any more',
  async () => {
    await settings();
    const rp = await newCallbackRp();
    const who = await newUser(api.deps, USER);
    const page = await newPage();
    const created = await createChallenge(rp, { state: 'wrong-totp' });
    await signInTo(page, created.url, who);
    // A second tab with the same confirmation page, loaded before the failure.
    const other = await page.context().newPage();
    await other.goto(created.url);
    await other.getByRole('heading', { name: 'Confirm an action' }).waitFor();

    await page.getByLabel(`I confirm: ${ACTION}`).check();
    await page.getByLabel('Authentication code').fill(await wrongTotp());
    await confirmButton(page).click();
    const denied = await rp.callback.nextCallback();
    expect(denied.get('error')).toBe('access_denied');
    expect(denied.get('error_description')).toBe('the second factor could not be verified');
    expect(denied.get('state')).toBe('wrong-totp');
    expect(denied.has('code')).toBe(false);

    // The tab loaded before: a valid code now gets "expired or already answered", and the app gets nothing.
    await other.getByLabel(`I confirm: ${ACTION}`).check();
    await other.getByLabel('Authentication code').fill(await totpAt());
    const status = await postStatus(other, () => confirmButton(other).click());
    expect(status).toBe(400);
    await other.getByText(GONE).waitFor();
    await expect(confirmButton(other).count()).resolves.toBe(0);
    await expectNoCallback(rp);

    // Reloading the challenge's url: the page is gone (once the workflow's projection says failed).
    await eventually(
      async () => {
        const reloaded = await page.goto(created.url);
        expect(reloaded?.status()).toBe(400);
        await expect(page.getByText(GONE).count()).resolves.toBe(1);
      },
      15_000,
      500,
    );
    await expect(confirmButton(page).count()).resolves.toBe(0);
  },
  TIMEOUT,
);

it(
  'keeps Confirm disabled until the box is ticked; a forced unticked submission is refused (400) without consuming the challenge',
  async () => {
    await settings();
    const rp = await newCallbackRp();
    const who = await newUser(api.deps, USER);
    const page = await newPage();
    const created = await createChallenge(rp, { state: 'unticked' });
    await signInTo(page, created.url, who);

    const box = page.getByLabel(`I confirm: ${ACTION}`);
    await expect(box.isChecked()).resolves.toBe(false);
    await expect(confirmButton(page).isDisabled()).resolves.toBe(true);
    const totp = await totpAt();
    await page.getByLabel('Authentication code').fill(totp);
    // Force it: enable the button behind the page's back and submit with the box unticked. After the page's
    // scripts have run: step-up.js disables the button again when it starts.
    await page.waitForLoadState('load');
    await page.evaluate(`document.querySelector('button[data-step-up-enable][value="confirm"]').disabled = false`);
    await expect(confirmButton(page).isEnabled()).resolves.toBe(true);
    const status = await postStatus(page, () => confirmButton(page).click());
    expect(status).toBe(400);
    await alertText(page, 'Tick the box to confirm the action first.').waitFor();
    await expectNoCallback(rp);

    // The page again, the challenge still open: the disabled button is back, and ticking + the same code confirms.
    await page.getByRole('heading', { name: 'Confirm an action' }).waitFor();
    await expect(confirmButton(page).isDisabled()).resolves.toBe(true);
    await page.getByLabel(`I confirm: ${ACTION}`).check();
    await expect(confirmButton(page).isEnabled()).resolves.toBe(true);
    await page.getByLabel('Authentication code').fill(totp);
    await confirmButton(page).click();
    const confirmed = await rp.callback.nextCallback();
    expect(confirmed.get('state')).toBe('unticked');
    const verified = await verify(rp, confirmed.get('code')!);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ method: 'totp', user_id: who.id, action: ACTION });
  },
  TIMEOUT,
);

it(
  'third-party captcha (hCaptcha) through a local fake verify server: a wrong token shows the page again, the right one with TOTP confirms',
  async () => {
    await settings({ captcha_provider: 'hcaptcha', captcha_site_key: 'browser-site-key', captcha_secret_key: CAPTCHA_SECRET, captcha_verify_url: fakeUrl });
    const rp = await newCallbackRp();
    const who = await newUser(api.deps, USER);
    const page = await newPage();
    // Every request the browser makes: none may go to a third party (the provider's widget is not loaded).
    const origins = new Set<string>();
    page.on('request', (r) => void origins.add(new URL(r.url()).origin));
    const created = await createChallenge(rp, { state: 'hcaptcha', require_captcha: true });
    await signInTo(page, created.url, who);

    const field = page.getByLabel('Captcha answer');
    await field.waitFor();
    await expect(field.getAttribute('data-provider')).resolves.toBe('hcaptcha');
    await expect(field.getAttribute('data-sitekey')).resolves.toBe('browser-site-key');
    const scripts = await Promise.all((await page.locator('script[src]').all()).map(async (el) => new URL((await el.getAttribute('src'))!, api.issuer).href));
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) expect(new URL(src).origin).toBe(api.issuer);

    const before = verifyCalls.length;
    await page.getByLabel(`I confirm: ${ACTION}`).check();
    await field.fill('wrong-captcha-token');
    await page.getByLabel('Authentication code').fill(await totpAt());
    const status = await postStatus(page, () => confirmButton(page).click());
    expect(status).toBe(400);
    await alertText(page, 'The captcha could not be verified. Try again.').waitFor();
    await expectNoCallback(rp);
    expect(verifyCalls.length).toBe(before + 1);
    expect(verifyCalls.at(-1)!.get('response')).toBe('wrong-captcha-token');
    expect(verifyCalls.at(-1)!.get('secret')).toBe(CAPTCHA_SECRET);

    // Not consumed (the captcha comes before the factor): the right token and a TOTP code confirm.
    await page.getByLabel(`I confirm: ${ACTION}`).check();
    await page.getByLabel('Captcha answer').fill(GOOD_TOKEN);
    await page.getByLabel('Authentication code').fill(await totpAt());
    await confirmButton(page).click();
    const confirmed = await rp.callback.nextCallback();
    expect(confirmed.get('state')).toBe('hcaptcha');
    expect(verifyCalls.length).toBe(before + 2);
    const call = verifyCalls.at(-1)!;
    expect(call.get('response')).toBe(GOOD_TOKEN);
    expect(call.get('secret')).toBe(CAPTCHA_SECRET);
    expect(call.get('remoteip')).toBeTruthy();
    const verified = await verify(rp, confirmed.get('code')!);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ method: 'totp', user_id: who.id, nonce: 'factors-nonce' });
    expect([...origins].filter((o) => o !== api.issuer && o !== new URL(rp.callback.redirectUri).origin)).toEqual([]);
  },
  TIMEOUT,
);

it(
  'site gate on while the challenge asks none: the page runs the proof of work; without its answer confirming fails, with it it succeeds',
  async () => {
    await settings({ require_captcha_for_2fa: true, captcha_provider: 'pow', pow_difficulty: 8 });
    const rp = await newCallbackRp();
    const who = await newUser(api.deps, USER);
    const page = await newPage();
    const created = await createChallenge(rp, { state: 'site-gate' });
    const info = (await (await fetch(`${api.issuer}/api/oauth/2fa/info?challenge_id=${created.challenge_id}`)).json()) as Json;
    expect(info).toMatchObject({ captcha_required: true, captcha_provider: 'pow', pow_difficulty: 8 });
    await signInTo(page, created.url, who);

    // The worker finishes and fills the hidden fields; then the answer is taken away again.
    await page.locator('[data-pow-done="yes"]').waitFor({ state: 'attached', timeout: 30_000 });
    await expect(page.getByRole('status').textContent()).resolves.toMatch(/Browser check done \(\d+ tried\)/);
    await page.evaluate(`for (const name of ['pow_challenge', 'pow_nonce']) document.querySelector('input[name="' + name + '"]').value = ''`);
    await page.getByLabel(`I confirm: ${ACTION}`).check();
    await page.getByLabel('Authentication code').fill(await totpAt());
    const status = await postStatus(page, () => confirmButton(page).click());
    expect(status).toBe(400);
    await alertText(page, 'Wait until the browser check has finished, then try again.').waitFor();
    await expectNoCallback(rp);

    // The page again: a fresh proof of work, then the box and a TOTP code confirm.
    await page.locator('[data-pow-done="yes"]').waitFor({ state: 'attached', timeout: 30_000 });
    await expect(page.locator('input[name="pow_nonce"]').inputValue()).resolves.toMatch(/^\d+$/);
    await page.getByLabel(`I confirm: ${ACTION}`).check();
    await page.getByLabel('Authentication code').fill(await totpAt());
    await confirmButton(page).click();
    const confirmed = await rp.callback.nextCallback();
    expect(confirmed.get('state')).toBe('site-gate');
    const verified = await verify(rp, confirmed.get('code')!);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ method: 'totp', user_id: who.id, action: ACTION });
  },
  TIMEOUT,
);
