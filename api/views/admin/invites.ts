// /admin/invites: the sign-up invites (newest first, a page at a time) with
// their state, the form that creates one, and, once, the link of the one just
// created (a readonly field to copy; the page is never cached).
import type { Response } from 'express';
import { INVITE_DEFAULT_DAYS, INVITE_MAX_DAYS, inviteState, type InviteDoc } from '../../../lib/model/invites.js';
import { html, type SafeHtml } from '../../html/html.js';
import { csrfField } from '../../html/layout.js';
import { option } from '../teams.js';
import { adminPage, pager } from './layout.js';
import { dataTable, type Column } from './table.js';
import { confirmedAction } from '../../html/confirm.js';
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

function columns(csrf: string, now: Date): Column<InviteDoc>[] {
  const revocable = (i: InviteDoc) => ['pending', 'expired'].includes(inviteState(i, now));
  return [
    { label: 'State', data: 'data-state', cell: (i) => inviteState(i, now) },
    { label: 'Email', cell: (i) => i.email ?? html`<span class="muted">any address</span>` },
    { label: 'Role', cell: (i) => i.role },
    { label: 'Expires (UTC)', cell: (i) => html`<time datetime="${i.expiresAt.toISOString()}">${day(i.expiresAt)}</time>` },
    {
      label: 'Actions',
      cell: (i) =>
        revocable(i)
          ? confirmedAction({
              csrf,
              action: adminInviteRevoke(i._id),
              label: 'Revoke',
              question: 'The link stops working at once; nobody can sign up with it.',
              confirm: 'Yes, revoke the invitation',
            })
          : '',
    },
  ];
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
    : dataTable('Invitations', columns(csrf, now), data.invites, (i) => html`data-invite="${i._id}"`)
}
${pager(ADMIN_PAGES.invites, {}, data.offset, data.size, data.hasMore)}</section>`,
  });
}
