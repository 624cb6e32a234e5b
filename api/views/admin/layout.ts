// The admin console's shell: the console's nav (the one list of its areas),
// the page around each area's body, and the pager of long lists.
import type { Response } from 'express';
import { html, type SafeHtml } from '../../html/html.js';
import { sendPage, type NavItem } from '../../html/layout.js';
import { ADMIN_PAGES, PAGES } from '../../paths.js';

/**
 * The console's areas, in nav order. A new area: one entry here and its
 * routes in api/pages/admin/console.ts.
 */
export const ADMIN_NAV: readonly NavItem[] = [
  { label: 'Overview', path: ADMIN_PAGES.home },
  { label: 'Users', path: ADMIN_PAGES.users },
  { label: 'Apps', path: ADMIN_PAGES.apps },
  { label: 'Invites', path: ADMIN_PAGES.invites },
  { label: 'Teams', path: ADMIN_PAGES.teams },
  { label: 'OAuth sources', path: ADMIN_PAGES.sources },
  { label: 'Settings', path: ADMIN_PAGES.settings },
  { label: 'Audit log', path: ADMIN_PAGES.audit },
  { label: 'Webhooks', path: ADMIN_PAGES.webhooks },
];

export interface AdminPageOptions {
  title: string;
  /** The nav entry of this page (marked aria-current). */
  area: string;
  body: SafeHtml;
  notice?: SafeHtml;
  status?: number;
}

export function adminPage(res: Response, { title, area, body, notice, status = 200 }: AdminPageOptions): void {
  sendPage(res, {
    title: `${title} · Administration`,
    status,
    shell: { area: 'Administration', items: ADMIN_NAV, current: area, footer: html`<p class="nav-foot"><a href="${PAGES.account}">Your account</a></p>` },
    body: html`<h1>${title}</h1>
${notice ?? ''}
${body}`,
  });
}

/** Links to the previous and next page of a list shown `size` at a time from `offset`. */
export function pager(path: string, query: Record<string, string>, offset: number, size: number, hasMore: boolean): SafeHtml {
  const at = (o: number) => `${path}?${new URLSearchParams({ ...query, offset: String(o) }).toString()}`;
  const previous = offset > 0 ? html`<a href="${at(Math.max(0, offset - size))}" rel="prev">Previous page</a>` : '';
  const next = hasMore ? html`<a href="${at(offset + size)}" rel="next">Next page</a>` : '';
  return previous || next ? html`<p class="pager">${previous} ${next}</p>` : html``;
}
