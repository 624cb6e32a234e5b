// /admin: how many users, apps and teams the instance has, and where to go.
import type { Response } from 'express';
import type { SiteCounts } from '../../../lib/store/site-counts.js';
import { html } from '../../html/html.js';
import { ADMIN_NAV, adminPage } from './layout.js';
import { ADMIN_PAGES } from '../../paths.js';

export function overviewPage(res: Response, counts: SiteCounts): void {
  const rows: [string, number][] = [
    ['Users', counts.users],
    ['Apps', counts.apps],
    ['Teams', counts.teams],
  ];
  adminPage(res, {
    title: 'Administration',
    area: ADMIN_PAGES.home,
    body: html`<dl class="counts">${rows.map(([label, n]) => html`<dt>${label}</dt><dd data-count="${label.toLowerCase()}">${n}</dd>`)}</dl>
<ul>${ADMIN_NAV.filter((n) => n.path !== ADMIN_PAGES.home).map((n) => html`<li><a href="${n.path}">${n.label}</a></li>`)}</ul>`,
  });
}
