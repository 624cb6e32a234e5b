// A relying party's web site for browser tests, on 127.0.0.1: its redirect
// endpoint records every hit, GET (query) or POST (form_post), and it serves
// pages that post a form by themselves, as an RP's page sends an authorization
// request by POST. Reached as http://127.0.0.1:<port>, its pages are on
// another site than an issuer on localhost (SameSite cookies stay home).
import { arrivals } from './arrivals.js';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { escapeHtml } from '../../api/html/html.js';
import { listenLocally } from './local-server.js';

export interface RpHit {
  method: string;
  query: URLSearchParams;
  /** The body of a POST (application/x-www-form-urlencoded), else null. */
  form: URLSearchParams | null;
  contentType: string | null;
}

export interface RpSite {
  /** `http://localhost:<port>/cb`: register it as the client's redirect URI. */
  redirectUri: string;
  /** A page on http://127.0.0.1:<port> that posts `fields` to `action` as soon as it loads. */
  autoPostPage(action: string, fields: Record<string, string>): string;
  /** The next hit of /cb not yet taken (waits for it; rejects after `timeoutMs`). */
  nextHit(timeoutMs?: number): Promise<RpHit>;
  close(): Promise<void>;
}

export async function startRpSite(): Promise<RpSite> {
  const hits = arrivals<RpHit>();
  const pages = new Map<string, string>();
  const record = (hit: RpHit) => hits.push(hit);

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const page = url.pathname.startsWith('/page/') ? pages.get(url.pathname.slice('/page/'.length)) : undefined;
    if (req.method === 'GET' && page) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page);
      return;
    }
    if (url.pathname !== '/cb' || (req.method !== 'GET' && req.method !== 'POST')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const contentType = req.headers['content-type'] ?? null;
      const form = req.method === 'POST' ? new URLSearchParams(Buffer.concat(chunks).toString('utf8')) : null;
      res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' }).end('ok');
      record({ method: req.method!, query: url.searchParams, form, contentType });
    });
  });
  const { port, close } = await listenLocally(server);

  return {
    redirectUri: `http://localhost:${port}/cb`,
    autoPostPage(action, fields) {
      const id = randomBytes(9).toString('base64url');
      const inputs = Object.entries(fields)
        .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
        .join('\n');
      pages.set(
        id,
        `<!doctype html><html><body><form method="post" action="${escapeHtml(action)}">${inputs}</form>` +
          `<script>document.forms[0].submit()</script></body></html>`,
      );
      return `http://127.0.0.1:${port}/page/${id}`;
    },
    nextHit: (timeoutMs = 15_000) => hits.next(timeoutMs, 'no request to the RP callback'),
    close,
  };
}
