// /admin/invites: the sign-up invites (newest first, a page at a time) with
// their state, the form that creates one, and, once, the link of the one just
// created (a readonly field to copy; the page is never cached).
import type { Response } from 'express';
import { INVITE_DEFAULT_DAYS, INVITE_MAX_DAYS, inviteState, type InviteDoc } from '../../../lib/model/invites.js';
import { html, type SafeHtml } from '../../html/html.js';
import { csrfField } from '../../html/layout.js';
import { option } from '../teams.js';
import { adminPage, pager } from './layout.js';
import { ADMIN_PAGES } from '../../paths.js';
import { currentDate } from '../../../lib/runtime/clock.js';

export const adminInviteRevoke = (id: string) => `${ADMIN_PAGES.invites}/${encodeURIComponent(id)}/revoke`;

/** The create form's values: the defaults, or what was sent when it was refused. */
export interface InviteDraft {
  email: string;
  role: string;
  days: string;
}

export const NEW_INVITE: InviteDraft = { email: '', role: 'user', days: String(INVITE_DEFAULT_DAYS) };

export interface AdminInvitesData {
  invites: InviteDoc[];
  offset: number;
  size: number;
  hasMore: boolean;
  draft: InviteDraft;
  /** The link of the invitation just created: on this one page only. */
  createdLink?: string;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

function inviteRow(csrf: string, invite: InviteDoc, now: Date): SafeHtml {
  const state = inviteState(invite, now);
  const revocable = state === 'pending' || state === 'expired';
  return html`<tr data-invite="${invite._id}"><td data-state>${state}</td><td>${invite.email ?? html`<span class="muted">any address</span>`}</td>
<td>${invite.role}</td><td><time datetime="${invite.expiresAt.toISOString()}">${day(invite.expiresAt)}</time></td>
<td>${revocable ? html`<form method="post" action="${adminInviteRevoke(invite._id)}">${csrfField(csrf)}<button type="submit">Revoke</button></form>` : ''}</td></tr>`;
}

const created = (link: string) => html`<section id="created-invite" aria-labelledby="created-invite-title">
<h2 id="created-invite-title">Invitation created</h2>
<p role="status">Copy the link now and send it to the invitee: it is shown only this once and cannot be shown again.</p>
<label for="invite-link">Invitation link</label>
<input id="invite-link" type="text" readonly value="${link}" size="80">
</section>`;

export function adminInvitesPage(res: Response, csrf: string, data: AdminInvitesData, notice?: SafeHtml, status = 200): void {
  const { draft } = data;
  const now = currentDate();
  adminPage(res, {
    title: 'Invites',
    area: ADMIN_PAGES.invites,
    notice,
    status,
    body: html`${data.createdLink ? created(data.createdLink) : ''}
<section id="new-invite"><h2>Invite someone</h2>
<form method="post" action="${ADMIN_PAGES.invites}">
${csrfField(csrf)}
<label for="invite-email">Email (optional: the sign-up must then use this address)</label>
<input id="invite-email" name="email" type="email" maxlength="254" value="${draft.email}">
<label for="invite-role">Role</label>
<select id="invite-role" name="role">${option('user', 'user', draft.role === 'user')}${option('admin', 'admin (site administrator)', draft.role === 'admin')}</select>
<label for="invite-days">Valid for (days, 1 to ${INVITE_MAX_DAYS})</label>
<input id="invite-days" name="days" type="number" min="1" max="${INVITE_MAX_DAYS}" required value="${draft.days}">
<button type="submit">Create invitation</button>
</form></section>
<section><h2>Invites</h2>
${
  data.invites.length === 0
    ? html`<p class="muted">No invitations${data.offset ? ' on this page' : ''}.</p>`
    : html`<table class="invites"><thead><tr><th>State</th><th>Email</th><th>Role</th><th>Expires (UTC)</th><th></th></tr></thead>
<tbody>${data.invites.map((i) => inviteRow(csrf, i, now))}</tbody></table>`
}
${pager(ADMIN_PAGES.invites, {}, data.offset, data.size, data.hasMore)}</section>`,
  });
}
