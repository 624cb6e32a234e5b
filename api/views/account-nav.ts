// The account area's navigation: one list of its pages, beside every page of
// it (the admin console's is api/views/admin/layout.ts). A page that is not an
// entry (the password form, a team, an app) marks the entry it belongs to.
import { html, type SafeHtml } from '../html/html.js';
import { csrfField, type NavItem, type Shell } from '../html/layout.js';
import type { SignedIn } from '../http/signed-in.js';
import { ADMIN_PAGES, PAGES } from '../paths.js';

export const ACCOUNT_NAV: readonly NavItem[] = [
  { label: 'Profile', path: PAGES.account },
  { label: 'Security', path: PAGES.security },
  { label: 'Sessions', path: PAGES.sessions },
  { label: 'Apps', path: PAGES.connectedApps },
  { label: 'Tokens', path: PAGES.tokens },
  { label: 'Teams', path: PAGES.teams },
  { label: 'Sign-in methods', path: PAGES.social },
  { label: 'Keys and domains', path: PAGES.gpgKeys },
  { label: 'Developer apps', path: PAGES.apps },
];

/** The two pages under "Keys and domains", each linking to the other. */
export function keysAndDomainsNav(current: string): SafeHtml {
  const link = (path: string, label: string) => html`<a href="${path}"${path === current ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<nav class="subnav" aria-label="Keys and domains">${link(PAGES.gpgKeys, 'GPG keys')} ${link(PAGES.domains, 'Domains')}</nav>`;
}

/** The account area's shell for `s`, with `current` marked; site admins also see the way to the console. */
export function accountShell({ session, user }: Pick<SignedIn, 'session' | 'user'>, current: string): Shell {
  return {
    area: 'Your account',
    items: user.role === 'admin' ? [...ACCOUNT_NAV, { label: 'Administration', path: ADMIN_PAGES.home }] : ACCOUNT_NAV,
    current,
    footer: html`<form method="post" action="${PAGES.logout}" class="nav-foot">${csrfField(session.csrf)}<button type="submit" class="secondary">Sign out</button></form>`,
  };
}
