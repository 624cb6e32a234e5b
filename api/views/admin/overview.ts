// /admin: how many users, apps and teams the instance has, each a way to its list.
import type { Response } from 'express';
import type { SiteCounts } from '../../../lib/store/site-counts.js';
import { html } from '../../html/html.js';
import { adminPage } from './layout.js';
import { ADMIN_PAGES } from '../../paths.js';

export function overviewPage(res: Response, counts: SiteCounts): void {
  const rows: [string, number, string][] = [
    ['Users', counts.users, ADMIN_PAGES.users],
    ['Apps', counts.apps, ADMIN_PAGES.apps],
    ['Teams', counts.teams, ADMIN_PAGES.teams],
  ];
  adminPage(res, {
    title: 'Administration',
    area: ADMIN_PAGES.home,
    body: html`<dl class="counts">${rows.map(
      ([label, n, path]) => html`<div><dt><a href="${path}">${label}</a></dt><dd data-count="${label.toLowerCase()}">${n}</dd></div>`,
    )}</dl>`,
  });
}
