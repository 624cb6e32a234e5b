// Helpers for end-to-end tests in a real browser: headless Chromium (Debian's,
// driven by playwright-core) for a test file with a page per browser, a
// virtual WebAuthn authenticator, and a tiny relying-party callback server
// that records where the flow sends the browser back.
import http from 'node:http';
import { arrivals } from './arrivals.js';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type CDPSession, type Locator, type Page } from 'playwright-core';
import { listenLocally } from './local-server.js';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Headless Chromium without background traffic (updates, sync, QUIC probes). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
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

export interface TestBrowser {
  /** The browser itself (launched before the file's first test). */
  browser: () => Browser;
  /** A new context: a browser of its own (cookies, storage), closed after the file's tests or by `closeAll`. */
  newContext: (options?: BrowserContextOptions) => Promise<BrowserContext>;
  /** A page in a new context. */
  newPage: (options?: BrowserContextOptions) => Promise<Page>;
  /** A page in a new context, signed in as `email` at the issuer's /login (on /account). */
  signedIn: (issuer: string, email: string, password: string) => Promise<Page>;
  /** Closes every context opened so far (for a file that wants fresh browsers in each test). */
  closeAll: () => Promise<void>;
}

/**
 * Headless Chromium for the tests of the calling file: launched in a
 * beforeAll hook, closed with every context it opened in an afterAll hook.
 * Call it at the top level of the test file.
 */
export function useBrowser(): TestBrowser {
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  const closeAll = async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  };
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await closeAll();
    await browser?.close();
  });
  const launched = () => {
    if (!browser) throw new Error('the browser is launched in beforeAll: use it inside a test or hook');
    return browser;
  };
  const newContext = async (options: BrowserContextOptions = {}) => {
    const context = await launched().newContext(options);
    contexts.push(context);
    return context;
  };
  const newPage = async (options: BrowserContextOptions = {}) => (await newContext(options)).newPage();
  return {
    browser: launched,
    newContext,
    newPage,
    signedIn: async (issuer, email, password) => {
      const page = await newPage();
      await signInAtAccount(page, issuer, email, password);
      return page;
    },
    closeAll,
  };
}

export interface VirtualAuthenticator {
  cdp: CDPSession;
  authenticatorId: string;
}

/**
 * A platform authenticator with discoverable credentials and user verification,
 * answering every WebAuthn ceremony of `page` without a prompt. It lives as long
 * as the page (across navigations) and the returned CDP session.
 */
export async function addVirtualAuthenticator(page: Page): Promise<VirtualAuthenticator> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

export interface RpCallback {
  /** `http://localhost:<port>/cb`: register it as the client's redirect URI. */
  redirectUri: string;
  /** The query of the next hit of /cb not yet taken (waits for it; rejects after `timeoutMs`). */
  nextCallback(timeoutMs?: number): Promise<URLSearchParams>;
  close(): Promise<void>;
}

/** A relying party's redirect endpoint on 127.0.0.1: answers `GET /cb` with "ok" and queues each query. */
export async function startRpCallback(): Promise<RpCallback> {
  const hits = arrivals<URLSearchParams>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method !== 'GET' || url.pathname !== '/cb') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' }).end('ok');
    hits.push(url.searchParams);
  });
  const { port, close } = await listenLocally(server);
  return {
    redirectUri: `http://localhost:${port}/cb`,
    nextCallback: (timeoutMs = 15_000) => hits.next(timeoutMs, 'no request to the RP callback'),
    close,
  };
}

/** startRpCallback for the tests of the calling file: started in beforeAll, closed in afterAll. */
export function useRpCallback(): RpCallback {
  let rp: RpCallback | undefined;
  beforeAll(async () => {
    rp = await startRpCallback();
  });
  afterAll(async () => {
    await rp?.close();
  });
  const started = () => {
    if (!rp) throw new Error('the RP callback starts in beforeAll: use it inside a test or hook');
    return rp;
  };
  return {
    get redirectUri() {
      return started().redirectUri;
    },
    nextCallback: (timeoutMs) => started().nextCallback(timeoutMs),
    close: () => started().close(),
  };
}

/** Registers a passkey named `name` on /account/security (the page's user signed in, a virtual authenticator added). */
export async function addPasskey(page: Page, issuer: string, name: string): Promise<void> {
  await page.goto(`${issuer}/account/security`);
  await page.getByLabel('Passkey name').fill(name);
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.getByRole('listitem').filter({ hasText: name }).waitFor();
}

/** Signs `email` in at the issuer's /login page with a password, and waits for the account page. */
export async function signInAtAccount(page: Page, issuer: string, email: string, password: string): Promise<void> {
  await page.goto(`${issuer}/login`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`${issuer}/account`);
}

/** The browser has no session at `issuer`: /account sends it to /login. */
export async function expectSignedOut(page: Page, issuer: string): Promise<void> {
  await page.goto(`${issuer}/account`);
  await page.waitForURL(`${issuer}/login`);
}

/** A destructive action asks first (api/html/confirm.ts): opens the question under `label` within `scope` and presses `confirm`. */
export async function confirmAction(scope: Page | Locator, label: string, confirm: string | RegExp): Promise<void> {
  await scope.locator('details.confirm > summary', { hasText: label }).first().click();
  await scope.getByRole('button', { name: confirm }).click();
}
