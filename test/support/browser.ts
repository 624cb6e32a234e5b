// Helpers for end-to-end tests in a real browser: headless Chromium (Debian's,
// driven by playwright-core), a virtual WebAuthn authenticator, and a tiny
// relying-party callback server that records where the flow sends the browser back.
import http from 'node:http';
import { arrivals } from './arrivals.js';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';

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
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://localhost:${port}/cb`,
    nextCallback: (timeoutMs = 15_000) => hits.next(timeoutMs, 'no request to the RP callback'),
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** Signs `email` in at the issuer's /login page with a password, and waits for the account page. */
export async function signInAtAccount(page: Page, issuer: string, email: string, password: string): Promise<void> {
  await page.goto(`${issuer}/login`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`${issuer}/account`);
}
