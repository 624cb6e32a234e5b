// Step-up 2FA confirmation in headless Chromium: the checkbox enables the
// factor buttons (/assets/step-up.js), and a passkey (virtual authenticator,
// /assets/webauthn.js against the challenge's passkey endpoints) confirms the
// action; the relying party's callback gets code and state, and verify answers
// method passkey.
import { generate } from 'otplib';
import { seal } from '../../../lib/security/kek.js';
import { createClient } from '../../../lib/store/clients.js';
import { createUser } from '../../../lib/store/users.js';
import { addPasskey, addVirtualAuthenticator, signInAtAccount, useRpCallback, useBrowser } from '../../support/browser.js';
import { useLocalhostApi, type Json } from '../../support/harness.js';
import { newStepUpRp } from '../../support/step-up-rp.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';

const PASSWORD = 'step-up browser password';
const TIMEOUT = 60_000;
const ACTION = 'Delete the project "apollo" <for good>';

const browser = useBrowser();
const rp = useRpCallback();

const api = useLocalhostApi();

const newPage = browser.newPage;

it(
  'enables the factors only once the box is ticked, and confirms with a passkey',
  async () => {
    const email = uniqueEmail('stepup-browser');
    const user = await createUser(api.deps.store, { email, password: PASSWORD, name: 'Browser Step Up' });
    const { client, clientSecret } = await createClient(api.deps.store, {
      name: 'Step-up RP',
      redirectUris: [{ type: 'equals', value: rp.redirectUri }],
      allowedScopes: ['openid'],
      isVerified: true,
    });
    const basic = `Basic ${Buffer.from(`${client._id}:${clientSecret}`).toString('base64')}`;

    const page = await newPage();
    await addVirtualAuthenticator(page);
    await signInAtAccount(page, api.issuer, email, PASSWORD);
    await addPasskey(page, api.issuer, 'Laptop');

    const created = await fetch(`${api.issuer}/api/oauth/2fa/challenges`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basic },
      body: JSON.stringify({ redirect_uri: rp.redirectUri, action: ACTION, nonce: 'browser-nonce', state: 'browser-state' }),
    });
    expect(created.status).toBe(201);
    const { url } = (await created.json()) as Json;

    await page.goto(url);
    await page.getByRole('heading', { name: 'Confirm an action' }).waitFor();
    const passkey = page.getByRole('button', { name: 'Use a passkey' });
    await expect(passkey.isDisabled()).resolves.toBe(true);
    await page.getByLabel(`I confirm: ${ACTION}`).check();
    await expect(passkey.isEnabled()).resolves.toBe(true);
    await page.getByLabel(`I confirm: ${ACTION}`).uncheck();
    await expect(passkey.isDisabled()).resolves.toBe(true);
    await page.getByLabel(`I confirm: ${ACTION}`).check();
    await passkey.click();

    const callback = await rp.nextCallback();
    expect(callback.get('state')).toBe('browser-state');
    const code = callback.get('code')!;
    expect(code).toBeTruthy();
    const verified = await fetch(`${api.issuer}/api/oauth/2fa/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
      body: new URLSearchParams({ code, redirect_uri: rp.redirectUri }),
    });
    expect(verified.status).toBe(200);
    expect(await verified.json()).toEqual({
      user_id: user._id,
      client_id: client._id,
      verified_at: expect.any(Number),
      action: ACTION,
      nonce: 'browser-nonce',
      method: 'passkey',
    });
  },
  TIMEOUT,
);

it(
  'sends a signed-out user through sign-in and back, confirms with TOTP, and Deny answers access_denied',
  async () => {
    const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
    const totp = (offset = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + offset });
    const email = uniqueEmail('stepup-totp');
    const user = await createUser(api.deps.store, { email, password: PASSWORD, name: 'TOTP Step Up' });
    await api.deps.store.users.updateOne(
      { _id: user._id },
      { $set: { totp: { secret: seal(api.deps.kek, Buffer.from(secret), `totp:${user._id}`), lastTimeStep: null, enabledAt: new Date() } } },
    );
    const { challenge, verify } = await newStepUpRp(api, rp, ACTION, { name: 'TOTP RP' });

    const page = await newPage();
    await page.goto(await challenge('s1'));
    await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
    await page.getByLabel('Authentication code').fill(await totp());
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'Confirm an action' }).waitFor();
    const confirm = page.getByRole('button', { name: 'Confirm' });
    await expect(confirm.isDisabled()).resolves.toBe(true);
    await page.getByLabel(`I confirm: ${ACTION}`).check();
    // The sign-in used this time step: the next one is still accepted (±30 s) and not yet used.
    await page.getByLabel('Authentication code').fill(await totp(30));
    await confirm.click();
    const confirmed = await rp.nextCallback();
    expect(confirmed.get('state')).toBe('s1');
    expect((await verify(confirmed.get('code')!)).method).toBe('totp');

    await page.goto(await challenge('s2'));
    await page.getByRole('button', { name: 'Deny' }).click();
    const denied = await rp.nextCallback();
    expect(denied.get('error')).toBe('access_denied');
    expect(denied.get('state')).toBe('s2');
    expect(denied.has('code')).toBe(false);
  },
  TIMEOUT,
);
