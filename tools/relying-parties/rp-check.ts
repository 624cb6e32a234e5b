// `npm run rp-check`: the Java relying-party recipes of docs/relying-parties.md
// against a Keyflow of their own, as their users would run them — Spring Boot
// 3.5 and 4.0 (sign-in, the resource server, RP-initiated logout) and Keycloak
// brokering Keyflow — with headless Chromium signing in on Keyflow's pages.
// Maven builds the Spring Boot app and fetches Keycloak from Maven Central
// (once each); nothing of theirs is committed but the recipe's sources. The
// results, with the date and commit, go into docs/relying-parties.md; exit 1
// when a check failed. `--no-docs` leaves the page as it is.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { freePort } from '../embedded/ports.js';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';
import { s256Challenge } from '../../lib/model/pkce.js';
import { startKeyflow, type KeyflowInstance } from './keyflow-instance.js';
import { IDP_ALIAS, KEYCLOAK_VERSION, REALM, startKeycloak } from './keycloak.js';
import { SPRING_BOOT_VERSIONS, springBootJar, startSpringApp } from './spring-boot.js';

const say = (line: string) => process.stderr.write(`[rp-check] ${line}\n`);
const RESOURCE = 'https://orders.example/';
const EMAIL = 'rp.check@example.com';
const PASSWORD = randomBytes(18).toString('base64url');
const DOCS = path.join(PROJECT_ROOT, 'docs', 'relying-parties.md');
const MARKER = '<!-- rp-check results: written by `npm run rp-check`, do not edit by hand -->';

interface Result {
  check: string;
  passed: boolean;
  detail: string;
}
const results: Result[] = [];

/** Runs one check: passed when it returns, failed (with the reason) when it throws. */
async function check(name: string, run: () => Promise<string>): Promise<void> {
  try {
    const detail = await run();
    results.push({ check: name, passed: true, detail });
    say(`PASSED ${name}: ${detail}`);
  } catch (err) {
    results.push({ check: name, passed: false, detail: (err as Error).message.split('\n')[0]!.slice(0, 300) });
    say(`FAILED ${name}: ${(err as Error).message}`);
  }
}

function expect(condition: boolean, what: string): void {
  if (!condition) throw new Error(what);
}

function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** On Keyflow's pages: signs in (when asked) and allows (when asked). */
async function signInAtKeyflow(page: Page, keyflow: KeyflowInstance): Promise<void> {
  await page.waitForURL((url) => url.href.startsWith(keyflow.issuer));
  if (page.url().includes('/login')) {
    await page.getByLabel('Email', { exact: true }).fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }
  const allow = page.getByRole('button', { name: 'Allow' });
  await page.waitForURL((url) => !url.href.startsWith(`${keyflow.issuer}/login`));
  if (page.url().startsWith(`${keyflow.issuer}/consent`)) await allow.click();
}

const bodyJson = async (page: Page) => JSON.parse((await page.locator('body').textContent()) ?? '') as Record<string, unknown>;

/** The access and ID token of a user of `client` (with PKCE and `resource`), through the browser; the code redeemed here. */
async function userTokens(context: BrowserContext, keyflow: KeyflowInstance, client: { id: string; secret: string }, redirect: string) {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = s256Challenge(verifier);
  const page = await context.newPage();
  let back = '';
  await page.route(`${redirect}**`, (route) => {
    back = route.request().url();
    return route.fulfill({ status: 200, body: 'back at the app' });
  });
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: client.id,
    redirect_uri: redirect,
    scope: 'openid email',
    resource: RESOURCE,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  await page.goto(`${keyflow.issuer}/api/oauth/authorize?${query}`);
  await signInAtKeyflow(page, keyflow);
  await page.waitForURL(`${redirect}**`);
  const code = new URL(back).searchParams.get('code') ?? '';
  const res = await fetch(`${keyflow.issuer}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirect, code_verifier: verifier }),
  });
  const tokens = (await res.json()) as { access_token: string; id_token: string };
  await page.close();
  return tokens;
}

async function machineToken(keyflow: KeyflowInstance, resource: string): Promise<string> {
  const app = await keyflow.cli(['clients', 'create', '--name', 'rp-check machine', '--machine-access', `${resource}=orders:read`]);
  const res = await fetch(`${keyflow.issuer}/api/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${String(app.client_id)}:${String(app.client_secret)}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

async function springBoot(version: string, keyflow: KeyflowInstance, browser: Browser): Promise<void> {
  let jar: string;
  try {
    jar = springBootJar(version, say);
  } catch (err) {
    for (const part of ['sign-in', 'resource server', 'logout'])
      results.push({ check: `Spring Boot ${version}: ${part}`, passed: false, detail: (err as Error).message });
    return;
  }
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // The recipe's app settings: its redirect URI and post-logout URI, RS256 ID tokens, the resource it serves.
  const app = await keyflow.cli([
    'clients',
    'create',
    '--name',
    `Spring Boot ${version}`,
    '--redirect-uri',
    `${base}/login/oauth2/code/keyflow`,
    '--post-logout-redirect-uri',
    `${base}/signed-out`,
    '--id-token-alg',
    'RS256',
  ]);
  const spring = await startSpringApp(jar, port, {
    KEYFLOW_ISSUER: keyflow.issuer,
    CLIENT_ID: String(app.client_id),
    CLIENT_SECRET: String(app.client_secret),
    RESOURCE,
  });
  const context = await browser.newContext();
  try {
    await check(`Spring Boot ${version}: sign-in`, async () => {
      const page = await context.newPage();
      await page.goto(`${spring.url}/`);
      await signInAtKeyflow(page, keyflow);
      // Spring Security returns to the saved request (Boot 3.5 and 4 add `?continue`).
      await page.waitForURL((url) => url.origin === spring.url && url.pathname === '/');
      const me = await bodyJson(page);
      expect(me.signed_in === true && me.email === EMAIL, `the app answered ${JSON.stringify(me)}`);
      return `oauth2Login with PKCE; the RS256 ID token verified; signed in as ${EMAIL}`;
    });
    await check(`Spring Boot ${version}: resource server`, async () => {
      const orders = (token: string) => fetch(`${spring.url}/api/orders`, { headers: { authorization: `Bearer ${token}` } });
      // A new app made with the README's command, unchanged: its users' access tokens are RS256.
      const readme = await keyflow.cli([
        'clients',
        'create',
        '--name',
        'README app',
        '--redirect-uri',
        'https://readme-app.example/callback',
        '--allowed-resource',
        RESOURCE,
      ]);
      const user = await userTokens(
        context,
        keyflow,
        { id: String(readme.client_id), secret: String(readme.client_secret) },
        'https://readme-app.example/callback',
      );
      const accepted = [await orders(user.access_token), await orders(await machineToken(keyflow, RESOURCE))];
      expect(
        accepted.every((r) => r.status === 200),
        `the access tokens were answered ${accepted.map((r) => r.status).join(', ')}`,
      );
      const refused = [await orders(user.id_token), await orders(await machineToken(keyflow, 'https://elsewhere.example/'))];
      expect(
        refused.every((r) => r.status === 401),
        `an ID token and another resource's token were answered ${refused.map((r) => r.status).join(', ')}`,
      );
      return "a new app's user token and a machine token accepted (at+jwt, RS256, aud); an ID token and another resource's token refused (401)";
    });
    await check(`Spring Boot ${version}: logout`, async () => {
      const page = await context.newPage();
      await page.goto(`${spring.url}/logout`);
      await page.getByRole('button', { name: /log ?out/i }).click();
      await page.waitForURL((url) => url.href.startsWith(`${keyflow.issuer}/api/oauth/end_session`));
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${spring.url}/signed-out**`);
      await page.goto(`${keyflow.issuer}/account`);
      expect(page.url().startsWith(`${keyflow.issuer}/login`), `after the logout, Keyflow's /account is ${page.url()}`);
      return "RP-initiated logout: Keyflow's end_session asked, signed out, and sent the browser back";
    });
  } finally {
    await context.close();
    await spring.stop();
  }
}

async function keycloakBroker(keyflow: KeyflowInstance, browser: Browser): Promise<void> {
  const name = `Keycloak ${KEYCLOAK_VERSION}: brokering Keyflow`;
  let keycloak;
  try {
    keycloak = await startKeycloak(say);
  } catch (err) {
    results.push({ check: name, passed: false, detail: (err as Error).message });
    return;
  }
  const context = await browser.newContext();
  try {
    await check(name, async () => {
      const app = await keyflow.cli([
        'clients',
        'create',
        '--name',
        'Keycloak broker',
        '--redirect-uri',
        keycloak.brokerRedirectUri,
        '--id-token-alg',
        'RS256',
      ]);
      await keycloak.addKeyflow(keyflow.issuer, { id: String(app.client_id), secret: String(app.client_secret) });
      const page = await context.newPage();
      await page.goto(`${keycloak.url}/realms/${REALM}/account`);
      await page.locator(`#social-${IDP_ALIAS}`).click();
      await signInAtKeyflow(page, keyflow);
      await page.waitForURL((url) => url.href.startsWith(keycloak.url));
      // A first broker login may ask to review the profile (names Keycloak needs that the claims left empty).
      const review = page.getByRole('button', { name: 'Submit' });
      if (await review.isVisible({ timeout: 5_000 }).catch(() => false)) {
        for (const field of ['firstName', 'lastName']) {
          const input = page.locator(`#${field}`);
          if ((await input.count()) && !(await input.inputValue())) await input.fill(field === 'firstName' ? 'RP' : 'Check');
        }
        await review.click();
      }
      await page.waitForURL(`${keycloak.url}/realms/${REALM}/account**`);
      const users = (await keycloak.admin('GET', `/users?email=${encodeURIComponent(EMAIL)}`)) as { id: string }[];
      expect(users.length === 1, `Keycloak has ${users.length} user(s) with ${EMAIL}`);
      const links = (await keycloak.admin('GET', `/users/${users[0]!.id}/federated-identity`)) as { identityProvider: string; userId: string }[];
      expect(
        links.some((l) => l.identityProvider === IDP_ALIAS),
        `the Keycloak user is linked to ${JSON.stringify(links)}`,
      );
      return 'Keyflow as an OpenID Connect identity provider (from discovery, PKCE on, RS256): the user signed in and linked';
    });
  } finally {
    await context.close();
    await keycloak.stop();
  }
}

function writeDocs(): void {
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: PROJECT_ROOT }).toString().trim();
  const date = new Date().toISOString().slice(0, 10);
  const rows = results.map((r) => `| ${r.check} | ${r.passed ? 'passed' : '**failed**'} | ${r.detail.replace(/\|/g, '\\|')} |`);
  const table = [MARKER, '', `Last run: ${date}, commit \`${commit}\`.`, '', '| Check | Result | What was checked |', '|---|---|---|', ...rows, ''].join('\n');
  const page = fs.readFileSync(DOCS, 'utf8');
  const at = page.indexOf(MARKER);
  if (at < 0) throw new Error(`${DOCS} has no results marker`);
  fs.writeFileSync(DOCS, page.slice(0, at) + table);
  say(`results written into ${path.relative(PROJECT_ROOT, DOCS)}`);
}

async function main(): Promise<number> {
  const docs = !process.argv.includes('--no-docs');
  say('starting a Keyflow of its own (data/rp-check)');
  const keyflow = await startKeyflow();
  let browser: Browser | undefined;
  try {
    await keyflow.cli(['users', 'create', '--email', EMAIL, '--password', PASSWORD, '--name', 'RP Check']);
    browser = await launchBrowser();
    for (const version of SPRING_BOOT_VERSIONS) await springBoot(version, keyflow, browser);
    await keycloakBroker(keyflow, browser);
  } finally {
    await browser?.close();
    await keyflow.stop();
  }
  for (const r of results) process.stdout.write(`${r.passed ? 'PASSED' : 'FAILED'}  ${r.check}: ${r.detail}\n`);
  if (docs) writeDocs();
  return results.every((r) => r.passed) ? 0 : 1;
}

process.exitCode = await main();
