// The page shell: one stylesheet and scripts from /assets (no external assets),
// a strict CSP, usable on a phone.
import type { Response } from 'express';
import { html, type SafeHtml } from './html.js';
import { ASSETS } from '../paths.js';

// A single https origin and nothing else (no space, ";" or quote): it goes into a header.
const IMG_ORIGIN = /^https:\/\/[a-z0-9.:-]+$/;

/**
 * The pages' CSP. No inline script or style anywhere. `form-action` is left
 * out on purpose: Chrome applies it to the redirect that follows a form POST,
 * and the consent form's answer is a redirect to the client. `imgOrigin`
 * admits images from one more origin, for this response only: a client's logo
 * (views/client-card.ts), never a wildcard.
 */
export function pageCsp(imgOrigin: string | null = null): string {
  const img = imgOrigin && IMG_ORIGIN.test(imgOrigin) ? ` ${imgOrigin}` : '';
  return `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:${img}; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'`;
}

export const PAGE_CSP = pageCsp();

export interface PageOptions {
  title: string;
  body: SafeHtml;
  scripts?: string[];
  status?: number;
  /** An origin the page loads an image from (a client's logo: ClientCard's imgOrigin). */
  imgOrigin?: string | null;
}

export function sendPage(res: Response, { title, body, scripts = [], status = 200, imgOrigin = null }: PageOptions): void {
  res
    .status(status)
    .set({ 'Content-Security-Policy': pageCsp(imgOrigin), 'Cache-Control': 'no-store' })
    .type('html')
    .send(
      html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Keyflow</title>
<link rel="icon" href="${ASSETS}/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${ASSETS}/keyflow.css">
${scripts.map((s) => html`<script src="${ASSETS}/${s}" defer></script>`)}
</head>
<body>
<main class="card">
<p class="brand">Keyflow</p>
${body}
</main>
</body>
</html>`.value,
    );
}

/** A hidden input carrying the session's CSRF token. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${token}">`;
}

/** The error page for errors that must not redirect (unknown client, bad redirect URI …). */
export function sendErrorPage(res: Response, status: number, title: string, message: string): void {
  sendPage(res, { title, status, body: html`<h1>${title}</h1><p class="error" role="alert">${message}</p>` });
}
