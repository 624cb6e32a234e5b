// /account/social: the user's linked accounts ("Sign in with …"), each with
// Unlink, and a Link button per enabled source not linked yet; and the
// refusal of an upstream sign-in that only a link from there can settle.
import type { Response } from 'express';
import type { OAuthSourceDoc, SocialAccountDoc } from '../../lib/model/oauth-sources.js';
import { html } from '../html/html.js';
import { csrfField, sendPage } from '../html/layout.js';
import { confirmedAction } from '../html/confirm.js';
import { accountShell } from './account-nav.js';
import type { SignedIn } from '../http/signed-in.js';
import { PAGES } from '../paths.js';

export interface SocialPageOptions {
  notice?: string;
  error?: string;
  status?: number;
}

export function socialAccountsPage(
  res: Response,
  signed: SignedIn,
  accounts: SocialAccountDoc[],
  sources: OAuthSourceDoc[],
  opts: SocialPageOptions = {},
): void {
  const nameOf = (a: SocialAccountDoc) => sources.find((s) => s._id === a.sourceId)?.name ?? a.provider;
  const linkable = sources.filter((s) => !accounts.some((a) => a.sourceId === s._id));
  const { session } = signed;
  sendPage(res, {
    shell: accountShell(signed, PAGES.social),
    title: 'Sign-in methods',
    status: opts.status,
    body: html`<h1>Sign-in methods</h1>
${opts.notice ? html`<p class="notice" role="status">${opts.notice}</p>` : ''}
${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ''}
<h2>Linked accounts</h2>
${accounts.length === 0 ? html`<p class="muted">No linked accounts.</p>` : ''}
<ul>${accounts.map(
      (
        a,
      ) => html`<li><strong>${nameOf(a)}</strong> <span class="muted">${a.email ?? a.providerUserId}</span> <span class="muted">linked ${a.linkedAt.toISOString().slice(0, 10)}</span>
${confirmedAction({
  csrf: session.csrf,
  action: `${PAGES.social}/${a._id}/unlink`,
  label: `Unlink ${nameOf(a)}`,
  question: `You can no longer sign in with ${nameOf(a)}.`,
  confirm: `Yes, unlink ${nameOf(a)}`,
})}</li>`,
    )}</ul>
${linkable.length ? html`<h2>Link an account</h2>` : ''}
${linkable.map(
  (s) =>
    html`<form class="inline" method="post" action="${PAGES.socialLink}/${s.slug}">${csrfField(session.csrf)}<button type="submit">Link ${s.name}</button></form>`,
)}`,
  });
}

/** Where the refusal of an upstream sign-in sends its user: the sign-in page, then the account's sign-in methods. */
const LINK_FROM_ACCOUNT = `${PAGES.login}?next=${encodeURIComponent(PAGES.social)}`;

/** An account with the upstream's email exists but the sign-in may not reach it: the way forward is to link from that account. */
export function linkFromAccountPage(res: Response, title: string, message: string): void {
  sendPage(res, {
    title,
    status: 403,
    body: html`<h1>${title}</h1>
<p class="error" role="alert">${message}</p>
<p><a class="button" href="${LINK_FROM_ACCOUNT}">Sign in another way</a></p>`,
  });
}
