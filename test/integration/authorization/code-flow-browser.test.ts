// The sign-in / consent / code flow in headless Chromium: password, TOTP,
// backup codes and passkeys (a virtual authenticator), prompt, max_age and
// acr_values, each ending at a real relying-party callback and token exchange.
import { AUTHORIZATION_CODE_FORMAT } from '../../support/token-flow.js';
import { randomBytes } from 'node:crypto';
import { generate } from 'otplib';
import type { Page } from 'playwright-core';
import { s256Challenge } from '../../../lib/model/pkce.js';
import { addPasskey, addVirtualAuthenticator, type RpCallback, startRpCallback, useBrowser } from '../../support/browser.js';
import { useLocalhostApi, type Json } from '../../support/harness.js';
import { skipTime } from '../../support/clock.js';
import { jwtClaims } from '../../support/http.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { newRp, type FixtureRp } from '../../../tools/fixtures/clients.js';

const PASSWORD = 'correct horse battery staple';
const RP_NAME = 'Browser RP';
const TIMEOUT = 60_000;

const browser = useBrowser();
let rp: RpCallback;

const api = useLocalhostApi();
beforeEach(async () => {
  rp = await startRpCallback();
});
afterEach(async () => {
  await browser.closeAll();
  await rp.close();
});

// --- Fixtures -----------------------------------------------------------------

/** A page in a fresh browser context (own cookies), closed after the test. */
const newPage = browser.newPage;

const USER = { prefix: 'browser', password: PASSWORD, name: 'Browser User' };

/** A verified client of this test's relying party. */
const newClient = (name = RP_NAME) =>
  newRp(api.deps, {
    name,
    redirectUris: [{ type: 'equals', value: rp.redirectUri }],
    allowedScopes: ['openid', 'profile', 'email'],
    idTokenSignedResponseAlg: 'RS256',
    isVerified: true,
  });

// --- The flow -------------------------------------------------------------------

interface Authorization {
  state: string;
  nonce: string;
  verifier: string;
}

const random = () => randomBytes(12).toString('base64url');

/** Opens the authorization endpoint with PKCE, a fresh state and nonce; `params` add to or override the defaults. */
async function startAuthorize(page: Page, params: Record<string, string> & { client_id: string }): Promise<Authorization> {
  const auth = { state: `st-${random()}`, nonce: `n-${random()}`, verifier: randomBytes(32).toString('base64url') };
  const url = new URL('/api/oauth/authorize', api.issuer);
  const query = {
    response_type: 'code',
    redirect_uri: rp.redirectUri,
    scope: 'openid profile email',
    state: auth.state,
    nonce: auth.nonce,
    code_challenge: s256Challenge(auth.verifier),
    code_challenge_method: 'S256',
    ...params,
  };
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  await page.goto(url.href);
  return auth;
}

const pathOf = (page: Page) => new URL(page.url()).pathname;

/** Fills the sign-in page (which the page must be on, or about to be on) and submits it. */
async function signInWithPassword(page: Page, email: string, password = PASSWORD): Promise<void> {
  await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** Answers the second-factor page with a code (TOTP or backup code). */
async function enterSecondFactor(page: Page, code: string): Promise<void> {
  await page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
  await page.getByLabel('Authentication code').fill(code);
  await page.getByRole('button', { name: 'Verify', exact: true }).click();
}

async function consent(page: Page, decision: 'Allow' | 'Deny', clientName = RP_NAME): Promise<void> {
  await page.getByRole('heading', { name: `Allow ${clientName}?` }).waitFor();
  await page.getByRole('button', { name: decision, exact: true }).click();
}

/** Checks the redirect back (state, iss) and returns its code. */
function codeFrom(query: URLSearchParams, auth: Authorization): string {
  expect(query.get('error')).toBeNull();
  expect(query.get('state')).toBe(auth.state);
  expect(query.get('iss')).toBe(api.issuer);
  const code = query.get('code');
  expect(code).toMatch(AUTHORIZATION_CODE_FORMAT);
  return code!;
}

/** The token response for a code (asserted 200). */
async function exchange(client: FixtureRp, code: string, verifier: string): Promise<Json> {
  const res = await fetch(`${api.issuer}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: client.basic },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: rp.redirectUri, code_verifier: verifier }),
  });
  const body = (await res.json()) as Json;
  expect({ status: res.status, body }).toEqual({
    status: 200,
    body: expect.objectContaining({ access_token: expect.any(String), id_token: expect.any(String) }),
  });
  return body;
}

/** Waits for the redirect back, exchanges its code, and returns the ID token's claims. */
async function finishFlow(client: FixtureRp, auth: Authorization): Promise<Json> {
  const code = codeFrom(await rp.nextCallback(), auth);
  const tokens = await exchange(client, code, auth.verifier);
  const claims = jwtClaims(tokens.id_token);
  expect(claims).toMatchObject({ iss: api.issuer, aud: client.id, nonce: auth.nonce });
  return claims;
}

/** A first authorization of `client`: sign in with the password, allow, and check the code that comes back. */
async function signInAndAllow(page: Page, client: FixtureRp, email: string): Promise<string> {
  const auth = await startAuthorize(page, { client_id: client.id });
  await signInWithPassword(page, email);
  await consent(page, 'Allow');
  return codeFrom(await rp.nextCallback(), auth);
}

// --- Account pages --------------------------------------------------------------

async function signInToAccount(page: Page, email: string): Promise<void> {
  await page.goto(`${api.issuer}/login`);
  await signInWithPassword(page, email);
  await page.waitForURL(`${api.issuer}/account`);
}

async function signOut(page: Page): Promise<void> {
  await page.goto(`${api.issuer}/account`);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
}

/** TOTP code for now, or (next) for the following 30-second step, which the server has not seen used. */
const totp = (secret: string, next = false) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + (next ? 30 : 0) });

/** Enrolls an authenticator app at /account/security; returns its secret and the backup codes shown. */
async function enrollTotp(page: Page): Promise<{ secret: string; backupCodes: string[] }> {
  await page.goto(`${api.issuer}/account/security`);
  await page.getByRole('button', { name: 'Set up authenticator app' }).click();
  await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
  const secret = (await page.getByLabel('Secret key').textContent())!.trim();
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
  await page.getByLabel('Authentication code').fill(await totp(secret));
  await page.getByRole('button', { name: 'Confirm' }).click();
  const codes = page.getByRole('list', { name: 'Backup codes' }).locator('code');
  await codes.first().waitFor();
  return { secret, backupCodes: await codes.allTextContents() };
}

// --- Tests ------------------------------------------------------------------------

describe('sign-in, consent and code in a browser', () => {
  it(
    'signs in with a password, asks consent, and returns a code that yields tokens and UserInfo',
    async () => {
      const { email, user } = await newUser(api.deps, USER);
      const client = await newClient();
      const page = await newPage();

      const auth = await startAuthorize(page, { client_id: client.id });
      expect(pathOf(page)).toBe('/login');
      await signInWithPassword(page, email);

      await page.getByRole('heading', { name: `Allow ${RP_NAME}?` }).waitFor();
      expect(await page.getByText('Verified', { exact: true }).isVisible()).toBe(true);
      const scopes = await page.getByRole('listitem').allTextContents();
      expect(scopes).toEqual([
        expect.stringContaining('Sign you in and know your account id'),
        expect.stringContaining('See your name, username and picture'),
        expect.stringContaining('See your email address'),
      ]);
      await consent(page, 'Allow');

      const query = await rp.nextCallback();
      expect([...query.keys()].sort()).toEqual(['code', 'iss', 'state']);
      const code = codeFrom(query, auth);
      expect(await page.textContent('body')).toBe('ok');

      const tokens = await exchange(client, code, auth.verifier);
      const claims = jwtClaims(tokens.id_token);
      expect(claims).toMatchObject({ iss: api.issuer, aud: client.id, sub: user._id, nonce: auth.nonce, acr: 'pwd', amr: ['pwd'] });

      const info = await fetch(`${api.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      expect(info.status).toBe(200);
      expect(await info.json()).toMatchObject({ sub: user._id, email, email_verified: true, name: 'Browser User' });
    },
    TIMEOUT,
  );

  it(
    'remembers consent: a second authorization goes straight back with a code',
    async () => {
      const { email } = await newUser(api.deps, USER);
      const client = await newClient();
      const page = await newPage();
      await signInAndAllow(page, client, email);

      const visited: string[] = [];
      page.on('request', (r) => visited.push(new URL(r.url()).pathname));
      const second = await startAuthorize(page, { client_id: client.id });
      const claims = await finishFlow(client, second);
      expect(claims.acr).toBe('pwd');
      expect(page.url().startsWith(rp.redirectUri)).toBe(true);
      expect(visited).not.toContain('/consent');
      expect(visited).not.toContain('/login');
    },
    TIMEOUT,
  );

  it(
    'sends access_denied with state and iss when the user denies',
    async () => {
      const { email } = await newUser(api.deps, USER);
      const client = await newClient();
      const page = await newPage();
      const auth = await startAuthorize(page, { client_id: client.id });
      await signInWithPassword(page, email);
      await consent(page, 'Deny');
      const query = await rp.nextCallback();
      expect(Object.fromEntries(query)).toEqual({ error: 'access_denied', error_description: expect.any(String), state: auth.state, iss: api.issuer });
    },
    TIMEOUT,
  );

  it(
    'answers prompt=none with login_required, then consent_required once signed in elsewhere',
    async () => {
      const { email } = await newUser(api.deps, USER);
      const client = await newClient();
      const page = await newPage();

      const anonymous = await startAuthorize(page, { client_id: client.id, prompt: 'none' });
      expect(Object.fromEntries(await rp.nextCallback())).toMatchObject({ error: 'login_required', state: anonymous.state, iss: api.issuer });

      // Sign in (and consent) through another application's flow only.
      const other = await newClient('Other RP');
      const viaOther = await startAuthorize(page, { client_id: other.id });
      await signInWithPassword(page, email);
      await consent(page, 'Allow', 'Other RP');
      codeFrom(await rp.nextCallback(), viaOther);

      const signedIn = await startAuthorize(page, { client_id: client.id, prompt: 'none' });
      expect(Object.fromEntries(await rp.nextCallback())).toMatchObject({ error: 'consent_required', state: signedIn.state, iss: api.issuer });
    },
    TIMEOUT,
  );

  it(
    'shows the sign-in page again for prompt=login and an exceeded max_age',
    async () => {
      const { email } = await newUser(api.deps, USER);
      const client = await newClient();
      const page = await newPage();
      await signInAndAllow(page, client, email);

      const relogin = await startAuthorize(page, { client_id: client.id, prompt: 'login' });
      expect(pathOf(page)).toBe('/login');
      await signInWithPassword(page, email);
      codeFrom(await rp.nextCallback(), relogin);

      skipTime(1100);
      const aged = await startAuthorize(page, { client_id: client.id, max_age: '1' });
      expect(pathOf(page)).toBe('/login');
      await signInWithPassword(page, email);
      const claims = await finishFlow(client, aged);
      expect(Date.now() / 1000 - claims.auth_time).toBeLessThan(5);
    },
    TIMEOUT,
  );
});

describe('second factors in a browser', () => {
  it(
    'enrolls an authenticator app, then signs in with password and TOTP (acr mfa)',
    async () => {
      const { email } = await newUser(api.deps, USER);
      const client = await newClient();
      const page = await newPage();
      await signInToAccount(page, email);
      const { secret, backupCodes } = await enrollTotp(page);
      expect(backupCodes).toHaveLength(10);
      expect(new Set(backupCodes).size).toBe(10);
      await page.goto(`${api.issuer}/account/security`);
      await page.getByText('Authenticator app: on').waitFor();
      await signOut(page);

      const auth = await startAuthorize(page, { client_id: client.id });
      await signInWithPassword(page, email);
      await page.waitForURL(/\/login\/second-factor\?request=/);
      await enterSecondFactor(page, await totp(secret, true));
      await consent(page, 'Allow');
      const claims = await finishFlow(client, auth);
      expect(claims.acr).toBe('mfa');
      expect(claims.amr).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']));
    },
    TIMEOUT,
  );

  it(
    'accepts a backup code once, and refuses it the second time',
    async () => {
      const { email } = await newUser(api.deps, USER);
      const client = await newClient();
      const page = await newPage();
      await signInToAccount(page, email);
      const { backupCodes } = await enrollTotp(page);
      const backup = backupCodes[3]!;
      await signOut(page);

      const auth = await startAuthorize(page, { client_id: client.id });
      await signInWithPassword(page, email);
      await enterSecondFactor(page, backup);
      await consent(page, 'Allow');
      const claims = await finishFlow(client, auth);
      expect(claims.acr).toBe('mfa');

      const again = await newPage();
      await startAuthorize(again, { client_id: client.id });
      await signInWithPassword(again, email);
      await enterSecondFactor(again, backup);
      await again.getByRole('alert').filter({ hasText: 'That code is not valid' }).waitFor();
      expect(pathOf(again)).toBe('/login/second-factor');
      await again.getByLabel('Authentication code').waitFor();
    },
    TIMEOUT,
  );

  it(
    'raises a password session to acr mfa for acr_values=mfa',
    async () => {
      const { email } = await newUser(api.deps, USER);
      const client = await newClient();
      const page = await newPage();
      await signInAndAllow(page, client, email);
      // TOTP enrolled during this session: the session itself is still acr=pwd.
      const { secret } = await enrollTotp(page);

      const plain = await startAuthorize(page, { client_id: client.id });
      const plainClaims = await finishFlow(client, plain);
      expect(plainClaims).toMatchObject({ acr: 'pwd', amr: ['pwd'] });

      const stepUp = await startAuthorize(page, { client_id: client.id, acr_values: 'mfa' });
      expect(pathOf(page)).toBe('/login/second-factor');
      await enterSecondFactor(page, await totp(secret, true));
      const claims = await finishFlow(client, stepUp);
      expect(claims.acr).toBe('mfa');
      expect(claims.amr).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']));
    },
    TIMEOUT,
  );
});

describe('passkeys in a browser', () => {
  it(
    'registers a passkey and signs in with it alone (acr mfa)',
    async () => {
      const { email, user } = await newUser(api.deps, USER);
      const client = await newClient();
      const page = await newPage();
      await addVirtualAuthenticator(page);
      await signInToAccount(page, email);
      await addPasskey(page, api.issuer, 'Test laptop');
      await signOut(page);

      const auth = await startAuthorize(page, { client_id: client.id });
      expect(pathOf(page)).toBe('/login');
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await consent(page, 'Allow');
      const claims = await finishFlow(client, auth);
      expect(claims.sub).toBe(user._id);
      expect(claims.acr).toBe('mfa');
      expect(claims.amr).toEqual(expect.arrayContaining(['webauthn']));
      expect(claims.amr).not.toContain('pwd');
    },
    TIMEOUT,
  );

  it(
    'offers a registered passkey as the second factor after the password',
    async () => {
      const { email } = await newUser(api.deps, USER);
      const client = await newClient();
      const page = await newPage();
      await addVirtualAuthenticator(page);
      await signInToAccount(page, email);
      await addPasskey(page, api.issuer, 'Security key');
      await signOut(page);

      const auth = await startAuthorize(page, { client_id: client.id });
      await signInWithPassword(page, email);
      await page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
      await page.getByRole('button', { name: 'Use a passkey' }).click();
      await consent(page, 'Allow');
      const claims = await finishFlow(client, auth);
      expect(claims.acr).toBe('mfa');
      expect(claims.amr).toEqual(expect.arrayContaining(['pwd', 'webauthn', 'mfa']));
    },
    TIMEOUT,
  );
});
