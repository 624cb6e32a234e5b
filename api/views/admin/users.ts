// /admin/users: the accounts on the instance (search, a page at a time) and
// one account's forms: profile and role, disable or enable, reset of second
// factors, revocation of every token, deletion (typing the email).
import type { Response } from 'express';
import { isDisabled, type UserDoc } from '../../../lib/model/users.js';
import { html, type SafeHtml } from '../../html/html.js';
import { csrfField } from '../../html/layout.js';
import { confirmedAction } from '../../html/confirm.js';
import { copyable } from '../../html/copyable.js';
import { option } from '../teams.js';
import { adminPage, pager } from './layout.js';
import { dataTable, listSorting, sortingFields, type Column } from './table.js';
import type { UserSort } from '../../../lib/store/users.js';
import { ADMIN_PAGES } from '../../paths.js';

export const adminUserPath = (id: string) => `${ADMIN_PAGES.users}/${encodeURIComponent(id)}`;

/** A listed account and how many passkeys it has. */
export interface AdminUserRow {
  user: UserDoc;
  passkeys: number;
}

export interface AdminUsersData {
  q: string;
  sort: UserSort;
  dir: 'asc' | 'desc';
  rows: AdminUserRow[];
  total: number;
  offset: number;
  size: number;
}

/** The profile form's values: the account's, or what was sent when it was refused. */
export interface UserDraft {
  name: string;
  email: string;
  username: string;
  role: string;
}

export const userDraftOf = (u: UserDoc): UserDraft => ({ name: u.name, email: u.email, username: u.username, role: u.role });

/** The second factors of an account, in words. */
const secondFactors = ({ user, passkeys }: AdminUserRow) =>
  [user.totp ? 'authenticator app' : '', passkeys ? `${passkeys} passkey${passkeys === 1 ? '' : 's'}` : ''].filter(Boolean).join(', ') || 'none';

const COLUMNS: readonly Column<AdminUserRow>[] = [
  { label: 'Email', sort: 'email', cell: (r) => html`<a href="${adminUserPath(r.user._id)}">${r.user.email}</a>` },
  { label: 'Username', sort: 'username', cell: (r) => r.user.username },
  { label: 'Name', sort: 'name', cell: (r) => r.user.name },
  { label: 'Role', cell: (r) => r.user.role },
  { label: 'State', cell: (r) => (isDisabled(r.user) ? 'disabled' : 'enabled') },
  { label: 'Second factors', cell: secondFactors },
  {
    label: 'Created',
    sort: 'created',
    cell: (r) => html`<time datetime="${r.user.createdAt.toISOString()}">${r.user.createdAt.toISOString().slice(0, 10)}</time>`,
  },
];

export function adminUsersPage(res: Response, data: AdminUsersData, notice?: SafeHtml, status = 200): void {
  const { q, rows, sort, dir } = data;
  const sorting = listSorting(ADMIN_PAGES.users, { q }, sort, dir);
  adminPage(res, {
    title: 'Users',
    area: ADMIN_PAGES.users,
    notice,
    status,
    body: html`<form method="get" action="${ADMIN_PAGES.users}" class="filters" role="search">
<div><label for="users-q">Search by email, username or name</label>
<input id="users-q" name="q" type="search" maxlength="100" value="${q}"></div>
${sortingFields(sorting)}
<button type="submit">Search</button>
</form>
<p class="muted">${data.total} account${data.total === 1 ? '' : 's'}${q ? ' found' : ''}.</p>
${rows.length === 0 ? '' : dataTable('Users', COLUMNS, rows, (r) => html`data-user="${r.user._id}"`, sorting)}
${pager(ADMIN_PAGES.users, { q, sort, dir }, data.offset, data.size, data.offset + rows.length < data.total)}`,
  });
}

/** A form of one button (and CSRF) posting to `action`. */
const buttonForm = (csrf: string, action: string, label: string, hidden: SafeHtml | '' = '') =>
  html`<form method="post" action="${action}">${csrfField(csrf)}${hidden}<button type="submit">${label}</button></form>`;

/** What a finished action says on the page it comes back to (`?done=`): fixed words, never the request's. */
export const USER_DONE: Record<string, string> = {
  saved: 'Saved.',
  disabled: 'The account is disabled: its sessions ended and its tokens were revoked.',
  enabled: 'The account is enabled: the user can sign in again.',
  'second-factors': 'Second factors removed: the user signs in with their password until they enroll again.',
  tokens: 'Every token of the user was revoked.',
};

export function adminUserPage(res: Response, csrf: string, row: AdminUserRow, draft: UserDraft, notice?: SafeHtml, status = 200): void {
  const { user } = row;
  const path = adminUserPath(user._id);
  const disabled = isDisabled(user);
  adminPage(res, {
    title: user.email,
    area: ADMIN_PAGES.users,
    notice,
    status,
    body: html`<p>${copyable(user._id, 'user ID')} · ${user.role} · <strong data-state>${disabled ? 'disabled' : 'enabled'}</strong> · second factors: ${secondFactors(row)}</p>
<section><h2>Profile and role</h2>
<form method="post" action="${path}">
${csrfField(csrf)}
<label for="user-name">Name</label>
<input id="user-name" name="name" type="text" maxlength="200" value="${draft.name}">
<label for="user-email">Email</label>
<input id="user-email" name="email" type="email" maxlength="254" required value="${draft.email}">
<label for="user-username">Username</label>
<input id="user-username" name="username" type="text" maxlength="63" required value="${draft.username}">
<label for="user-role">Role</label>
<select id="user-role" name="role">${option('user', 'user', draft.role === 'user')}${option('admin', 'admin (site administrator)', draft.role === 'admin')}</select>
<button type="submit">Save user</button>
</form></section>
<section><h2>Access</h2>
<p>Disabling ends the user's sessions and revokes their tokens at once; enabling lets them sign in again (what was revoked stays revoked).</p>
${
  disabled
    ? buttonForm(csrf, `${path}/disable`, 'Enable account', html`<input type="hidden" name="disabled" value="0">`)
    : confirmedAction({
        csrf,
        action: `${path}/disable`,
        label: 'Disable account',
        question: `${user.email} is signed out everywhere and every token is revoked; they cannot sign in until enabled.`,
        confirm: 'Yes, disable the account',
        hidden: html`<input type="hidden" name="disabled" value="1">`,
      })
}
${confirmedAction({
  csrf,
  action: `${path}/reset-2fa`,
  label: 'Reset second factors',
  question: 'The authenticator app, passkeys and backup codes are removed; the user signs in with the password alone until they enroll again.',
  confirm: 'Yes, reset second factors',
})}
${confirmedAction({
  csrf,
  action: `${path}/revoke-tokens`,
  label: 'Revoke all tokens',
  question: 'Every access and refresh token and personal access token of the user stops working at once; apps must ask them to sign in again.',
  confirm: 'Yes, revoke all tokens',
})}
</section>
<section><h2>Delete this account</h2>
<form method="post" action="${path}/delete">
${csrfField(csrf)}
<label for="delete-confirm">Type <code>${user.email}</code> to delete the account</label>
<input id="delete-confirm" name="confirm" type="text" maxlength="254" autocomplete="off" required>
<button type="submit">Delete user</button>
</form></section>
<p><a href="${ADMIN_PAGES.users}">All users</a></p>`,
  });
}
