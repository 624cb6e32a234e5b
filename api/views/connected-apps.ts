// The connected apps page: each app the user allowed, with what it may see,
// and "Remove access".
import type { Response } from 'express';
import { html, type SafeHtml } from '../html/html.js';
import { sendPage } from '../html/layout.js';
import { confirmedAction } from '../html/confirm.js';
import { accountShell } from './account-nav.js';
import type { SignedIn } from '../http/signed-in.js';
import { PAGES } from '../paths.js';
import { describeScope } from './consent.js';

export interface ConnectedApp {
  clientId: string;
  /** The client's name; null when the client is gone. */
  name: string | null;
  scopes: string[];
  updatedAt: Date;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

export function connectedAppsPage(res: Response, signed: SignedIn, apps: ConnectedApp[], notice?: SafeHtml): void {
  const { session } = signed;
  sendPage(res, {
    title: 'Apps you allowed',
    shell: accountShell(signed, PAGES.connectedApps),
    body: html`<h1>Apps you allowed</h1>
${notice ?? ''}
<p>Apps that may act for you with what you allowed them. Removing an app's access signs it out of your account at once: its tokens stop working, and it must ask you again.</p>
${apps.length === 0 ? html`<p class="muted">You have not allowed any app.</p>` : ''}
<ul class="connected-apps">${apps.map(
      (a) => html`<li><strong>${a.name ?? a.clientId}</strong>
<span class="muted">allowed ${day(a.updatedAt)}</span>
<ul>${a.scopes.map((s) => html`<li>${describeScope(s)}</li>`)}</ul>
${confirmedAction({
  csrf: session.csrf,
  action: `${PAGES.connectedApps}/${encodeURIComponent(a.clientId)}/remove`,
  label: 'Remove access',
  question: html`<strong>${a.name ?? a.clientId}</strong> loses its tokens at once and must ask you again to sign you in.`,
  confirm: `Yes, remove access of ${a.name ?? a.clientId}`,
})}</li>`,
    )}</ul>`,
  });
}
