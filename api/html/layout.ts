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

/** One entry of an area's navigation. */
export interface NavItem {
  label: string;
  path: string;
}

/**
 * The shell of an area people work in (the account, the admin console): a
 * full-width page with the area's navigation beside the content (above it on
 * a narrow screen), the current entry marked with aria-current. Pages without
 * one (sign-in, consent, device) are the centred card.
 */
export interface Shell {
  /** The area's name: the navigation's accessible name and the header's label. */
  area: string;
  items: readonly NavItem[];
  /** The path of the entry this page belongs to. */
  current: string;
  /** What ends the navigation (a sign-out button). */
  footer?: SafeHtml;
}

export interface PageOptions {
  title: string;
  body: SafeHtml;
  /** A full-width page with navigation; without it, the centred card. */
  shell?: Shell;
  scripts?: string[];
  status?: number;
  /** An origin the page loads an image from (a client's logo: ClientCard's imgOrigin). */
  imgOrigin?: string | null;
}

function shellBody(shell: Shell, body: SafeHtml): SafeHtml {
  const items = shell.items.map((n) => html`<li><a href="${n.path}"${n.path === shell.current ? html` aria-current="page"` : ''}>${n.label}</a></li>`);
  return html`<a class="skip" href="#content">Skip to content</a>
<header class="topbar"><span class="brand">Keyflow</span> <span class="area">${shell.area}</span></header>
<div class="shell">
<nav class="side" aria-label="${shell.area}"><ul>${items}</ul>${shell.footer ?? ''}</nav>
<main id="content" class="content">
${body}
</main>
</div>`;
}

export function sendPage(res: Response, { title, body, shell, scripts = [], status = 200, imgOrigin = null }: PageOptions): void {
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
${(shell ? [...scripts, 'copy.js'] : scripts).map((s) => html`<script src="${ASSETS}/${s}" defer></script>`)}
</head>
${
  shell
    ? html`<body class="wide">
${shellBody(shell, body)}
</body>`
    : html`<body>
<main class="card">
<p class="brand">Keyflow</p>
${body}
</main>
</body>`
}
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
