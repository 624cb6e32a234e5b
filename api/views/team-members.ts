// The team page's members and groups: each member with role and groups, and,
// for those who manage members, their emails, the pending invitations and the
// forms to invite, change and remove members. A
// role select offers only the roles the signed-in user may give, and a member
// whose role is beyond that reach gets no forms at all.
import type { TeamDoc, TeamMemberDoc } from '../../lib/model/teams.js';
import { assignableRoles, canManage, may, type TeamRole } from '../../lib/model/team-roles.js';
import { INVITATION_TTL_MS, type TeamInvitationDoc } from '../../lib/model/team-invitations.js';
import type { UserDoc } from '../../lib/model/users.js';
import { html, type SafeHtml } from '../html/html.js';
import { csrfField } from '../html/layout.js';
import { checked, roleOptions, teamPath } from './teams.js';

export interface MemberRow {
  member: TeamMemberDoc;
  /** Undefined when the account is gone. */
  user: UserDoc | undefined;
}

function memberForms(csrf: string, team: TeamDoc, reach: TeamRole[], { member, user }: MemberRow): SafeHtml {
  const action = `${teamPath(team._id)}/members/${member.userId}`;
  const who = user?.username ?? member.userId;
  return html`<form class="inline" method="post" action="${action}">${csrfField(csrf)}
<select name="role" aria-label="Role of ${who}">${roleOptions(reach, member.role)}</select>
<button type="submit" class="secondary">Change role</button></form>
${
  team.groups.length
    ? html`<form method="post" action="${action}">${csrfField(csrf)}<input type="hidden" name="set_groups" value="1">
<fieldset><legend>Groups of ${who}</legend>${team.groups.map(
        (g) => html`<label><input type="checkbox" name="groups" value="${g.slug}"${checked(member.groups.includes(g.slug))}> ${g.name}</label>`,
      )}</fieldset>
<button type="submit" class="secondary">Set groups</button></form>`
    : ''
}
<form class="inline" method="post" action="${action}/remove">${csrfField(csrf)}<button type="submit" class="secondary">Remove ${who}</button></form>`;
}

function invitationsList(csrf: string, team: TeamDoc, reach: TeamRole[], invitations: TeamInvitationDoc[]): SafeHtml {
  if (invitations.length === 0) return html``;
  return html`<h3>Pending invitations</h3>
<ul class="invitations">${invitations.map(
    (
      i,
    ) => html`<li data-invitation="${i._id}"><strong>${i.reference}</strong> as <span data-role>${i.role}</span> <span class="muted">until ${i.expiresAt.toISOString().slice(0, 10)}</span>
${reach.includes(i.role) ? html`<form class="inline" method="post" action="${teamPath(team._id)}/invitations/${i._id}/revoke">${csrfField(csrf)}<button type="submit" class="secondary">Revoke the invitation of ${i.reference}</button></form>` : ''}</li>`,
  )}</ul>`;
}

/**
 * The members, and for those who manage them the forms and the pending
 * invitations. Emails are shown only to managers: a plain member sees who is
 * in the team by name and username, not how to reach them.
 */
export function membersSection(csrf: string, team: TeamDoc, role: TeamRole, members: MemberRow[], invitations: TeamInvitationDoc[]): SafeHtml {
  const reach = assignableRoles(role);
  const showEmails = canManage(role);
  const groupName = (slug: string) => team.groups.find((g) => g.slug === slug)?.name ?? slug;
  return html`<section><h2>Members</h2>
<ul class="members">${members.map(
    (row) => html`<li data-member="${row.member.userId}"><strong>${row.user?.name || row.user?.username || 'Deleted account'}</strong>
${row.user ? html`<span class="muted">${row.user.username}</span>${showEmails ? html` <span data-email>${row.user.email}</span>` : ''}` : ''}
<p>Role: <span data-role>${row.member.role}</span>${row.member.groups.length ? html` · Groups: <span data-groups>${row.member.groups.map(groupName).join(', ')}</span>` : ''}</p>
${reach.includes(row.member.role) ? memberForms(csrf, team, reach, row) : ''}</li>`,
  )}</ul>
${
  reach.length
    ? html`${invitationsList(csrf, team, reach, invitations)}
<h3>Invite a member</h3>
<p class="muted">They join once they accept the invitation on their teams page. It lapses after ${INVITATION_TTL_MS / 86_400_000} days.</p>
<form method="post" action="${teamPath(team._id)}/members">
${csrfField(csrf)}
<label for="member-user">Email, username or user id</label>
<input id="member-user" name="user" type="text" maxlength="320" required>
<label for="member-role">Role</label>
<select id="member-role" name="role">${roleOptions(reach, 'member')}</select>
<button type="submit">Invite</button>
</form>`
    : ''
}
</section>`;
}

export function groupsSection(csrf: string, team: TeamDoc, role: TeamRole): SafeHtml {
  const editable = may(role, 'update');
  return html`<section><h2>Groups</h2>
<p class="muted">Member groups are ${team.memberGroupsEnabled ? 'on' : 'off'} for this team.</p>
${team.groups.length === 0 ? html`<p class="muted">No groups.</p>` : ''}
<ul class="groups">${team.groups.map(
    (g) => html`<li>${g.name} <code>${g.slug}</code>
${editable ? html`<form class="inline" method="post" action="${teamPath(team._id)}/groups/${g.slug}/remove">${csrfField(csrf)}<button type="submit" class="secondary">Remove group ${g.slug}</button></form>` : ''}</li>`,
  )}</ul>
${
  editable
    ? html`<form method="post" action="${teamPath(team._id)}/groups">
${csrfField(csrf)}
<label for="group-slug">Group slug</label>
<input id="group-slug" name="slug" type="text" maxlength="63" required>
<label for="group-name">Group name</label>
<input id="group-name" name="name" type="text" maxlength="100" required>
<button type="submit">Add group</button>
</form>`
    : ''
}
</section>`;
}
