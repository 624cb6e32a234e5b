// /admin: how many users, apps and teams the instance has, and where to go.
import type { Response } from 'express';
import type { SiteCounts } from '../../../lib/store/site-counts.js';
import { html } from '../../html/html.js';
import { ADMIN_HOME, ADMIN_NAV, adminPage } from './layout.js';

export function overviewPage(res: Response, counts: SiteCounts): void {
  const rows: [string, number][] = [
    ['Users', counts.users],
    ['Apps', counts.apps],
    ['Teams', counts.teams],
  ];
  adminPage(res, {
    title: 'Administration',
    area: ADMIN_HOME,
    body: html`<dl class="counts">${rows.map(([label, n]) => html`<dt>${label}</dt><dd data-count="${label.toLowerCase()}">${n}</dd>`)}</dl>
<ul>${ADMIN_NAV.filter((n) => n.path !== ADMIN_HOME).map((n) => html`<li><a href="${n.path}">${n.label}</a></li>`)}</ul>`,
  });
}
