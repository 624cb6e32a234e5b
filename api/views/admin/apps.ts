// /admin/apps: every app on the instance (search, a page at a time) and one
// app's forms: verified by the site or not, its machine access
// (client_credentials), deactivated or active (deactivating asks for the
// client id typed, as it revokes every grant of the app).
import type { Response } from 'express';
import { isClientActive, type ClientDoc } from '../../../lib/model/clients.js';
import { html, type SafeHtml } from '../../html/html.js';
import { csrfField } from '../../html/layout.js';
import { adminPage, pager } from './layout.js';
import { dataTable, listSorting, sortingFields, type Column } from './table.js';
import type { ClientSort } from '../../../lib/store/clients.js';
import { copyable } from '../../html/copyable.js';
import { adminUserPath } from './users.js';
import { ADMIN_PAGES } from '../../paths.js';

export const adminAppPath = (id: string) => `${ADMIN_PAGES.apps}/${encodeURIComponent(id)}`;

export interface AdminAppsData {
  q: string;
  sort: ClientSort;
  dir: 'asc' | 'desc';
  apps: ClientDoc[];
  offset: number;
  size: number;
  hasMore: boolean;
}

const owner = (c: ClientDoc) =>
  c.ownerUserId ? html`<a href="${adminUserPath(c.ownerUserId)}"><code class="id">${c.ownerUserId}</code></a>` : html`<span class="muted">operator</span>`;

const COLUMNS: readonly Column<ClientDoc>[] = [
  { label: 'Name', sort: 'name', cell: (c) => html`<a href="${adminAppPath(c._id)}">${c.name}</a>` },
  { label: 'Client ID', cell: (c) => copyable(c._id, `client ID of ${c.name}`) },
  { label: 'Owner', cell: owner },
  { label: 'Verified', data: 'data-verified', cell: (c) => (c.isVerified ? 'verified' : 'not verified') },
  { label: 'State', data: 'data-active', cell: (c) => (isClientActive(c) ? 'active' : 'deactivated') },
  { label: 'Created', sort: 'created', cell: (c) => html`<time datetime="${c.createdAt.toISOString()}">${c.createdAt.toISOString().slice(0, 10)}</time>` },
];

export function adminAppsPage(res: Response, data: AdminAppsData, notice?: SafeHtml, status = 200): void {
  const { q, apps } = data;
  const sorting = listSorting(ADMIN_PAGES.apps, { q }, data.sort, data.dir);
  adminPage(res, {
    title: 'Apps',
    area: ADMIN_PAGES.apps,
    notice,
    status,
    body: html`<form method="get" action="${ADMIN_PAGES.apps}" class="filters" role="search">
<div><label for="apps-q">Search by name or client id</label>
<input id="apps-q" name="q" type="search" maxlength="200" value="${q}"></div>
${sortingFields(sorting)}
<button type="submit">Search</button>
</form>
${
  apps.length === 0
    ? html`<p class="muted">No apps${q || data.offset ? ' here' : ''}.</p>`
    : dataTable('Apps', COLUMNS, apps, (c) => html`data-app="${c._id}"`, sorting)
}
${pager(ADMIN_PAGES.apps, { q, sort: data.sort, dir: data.dir }, data.offset, data.size, data.hasMore)}`,
  });
}

/** What a finished action says on the app's page (`?done=`). */
export const APP_DONE: Readonly<Record<string, string>> = {
  verified: 'The app is marked verified.',
  unverified: 'The app is no longer marked verified.',
  deactivated: 'The app is deactivated: its grants and consents were revoked and every OAuth endpoint refuses it.',
  reactivated: 'The app is active again. Its users sign in to it afresh.',
  'machine-access': "The app's machine access is saved; the machine tokens it held were revoked.",
};

export function adminAppPage(res: Response, csrf: string, app: ClientDoc, notice?: SafeHtml, status = 200): void {
  const path = adminAppPath(app._id);
  const active = isClientActive(app);
  const state = active
    ? html`<form method="post" action="${path}/deactivate">
${csrfField(csrf)}
<label for="deactivate-confirm">Type the client id <code>${app._id}</code> to deactivate the app</label>
<input id="deactivate-confirm" name="confirm" type="text" maxlength="200" autocomplete="off" required>
<button type="submit">Deactivate app</button>
</form>`
    : html`<form method="post" action="${path}/reactivate">${csrfField(csrf)}<button type="submit">Reactivate app</button></form>`;
  adminPage(res, {
    title: app.name,
    area: ADMIN_PAGES.apps,
    notice,
    status,
    body: html`<p>Client ID ${copyable(app._id, 'client ID')} · owner ${owner(app)} · <strong data-verified>${app.isVerified ? 'verified' : 'not verified'}</strong> ·
<strong data-active>${active ? 'active' : 'deactivated'}</strong></p>
<section><h2>Verification</h2>
<p>A verified app is marked so on consent pages and in the <code>apps</code> claim.</p>
<form method="post" action="${path}/verify">
${csrfField(csrf)}<input type="hidden" name="verified" value="${app.isVerified ? '0' : '1'}">
<button type="submit">${app.isVerified ? 'Mark as not verified' : 'Mark as verified'}</button>
</form></section>
<section><h2>Machine access</h2>
<p>What the app may get for itself with the <code>client_credentials</code> grant: one resource (RFC 8707 resource indicator) per line, then the scopes it may hold there, e.g. <code>https://api.example/ orders:read orders:write</code>. Empty: none. ${
      app.public ? html`<strong>A public app cannot have machine access.</strong>` : ''
    }</p>
<form method="post" action="${path}/machine-access">
${csrfField(csrf)}
<label for="machine-access">Resources and scopes</label>
<textarea id="machine-access" name="machine_access" rows="3" spellcheck="false">${(app.machineAccess ?? []).map((e) => `${e.resource} ${e.scopes.join(' ')}`).join('\n')}</textarea>
<button type="submit">Save machine access</button>
</form></section>
<section><h2>${active ? 'Deactivate' : 'Reactivate'}</h2>
<p>A deactivated app is refused at every OAuth endpoint, and its grants, refresh tokens and consents are revoked. Reactivating does not bring them back.</p>
${state}</section>
<p><a href="${ADMIN_PAGES.apps}">All apps</a></p>`,
  });
}
