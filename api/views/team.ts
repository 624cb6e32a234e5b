// One team's page: its settings, members, groups and child teams, and the
// delete and leave forms. Each form is there only for a role that may use it
// (model/team-roles.ts); a member sees the same page read only.
import type { Response } from 'express';
import type { TeamDoc, TeamMemberDoc } from '../../lib/model/teams.js';
import type { TeamInvitationDoc } from '../../lib/model/team-invitations.js';
import { may, type TeamRole } from '../../lib/model/team-roles.js';
import { html, type SafeHtml } from '../html/html.js';
import { csrfField, sendPage } from '../html/layout.js';
import { confirmedAction } from '../html/confirm.js';
import { accountShell } from './account-nav.js';
import type { SignedIn } from '../http/signed-in.js';
import { groupsSection, membersSection, type MemberRow } from './team-members.js';
import { checked, option, parentOptions, teamPath } from './teams.js';
import { PAGES } from '../paths.js';

export interface TeamPageData {
  team: TeamDoc;
  /** The signed-in user's effective role. */
  role: TeamRole;
  /** Whether the user may move the team (the move rule: lib/model/team-roles.ts). */
  canMove: boolean;
  /** The user's own membership of this team; null when the role comes from a parent team. */
  own: TeamMemberDoc | null;
  /** The parent team, when the user has a role there too (else its name is not shown). */
  parent: TeamDoc | null;
  members: MemberRow[];
  /** Pending invitations (for those who manage members; else empty). */
  invitations: TeamInvitationDoc[];
  children: TeamDoc[];
  /** Where the team may move (for a role that may move it). */
  parentChoices: TeamDoc[];
}

function settingsForm(csrf: string, { team, canMove, parentChoices }: TeamPageData): SafeHtml {
  const current = team.parentId ?? '';
  const keepCurrent = current !== '' && !parentChoices.some((t) => t._id === current);
  return html`<form method="post" action="${teamPath(team._id)}/settings">
${csrfField(csrf)}
<label for="settings-name">Name</label>
<input id="settings-name" name="name" type="text" maxlength="100" required value="${team.name}">
<label for="settings-slug">Slug</label>
<input id="settings-slug" name="slug" type="text" maxlength="63" required value="${team.slug}">
<label for="settings-description">Description</label>
<input id="settings-description" name="description" type="text" maxlength="500" value="${team.description}">
<label><input type="checkbox" name="member_groups" value="1"${checked(team.memberGroupsEnabled)}> Enable member groups</label>
${
  canMove
    ? html`<label for="settings-parent">Parent team</label>
<select id="settings-parent" name="parent_id">${keepCurrent ? option(current, 'The current parent team', true) : ''}${parentOptions(parentChoices, current)}</select>`
    : ''
}
<button type="submit">Save settings</button>
</form>`;
}

function deleteForm(csrf: string, { team, children }: TeamPageData): SafeHtml {
  return html`<section><h2>Delete this team</h2>
<form method="post" action="${teamPath(team._id)}/delete">
${csrfField(csrf)}
<label for="delete-confirm">Type the team's slug, <code>${team.slug}</code>, to confirm</label>
<input id="delete-confirm" name="confirm" type="text" maxlength="63" autocomplete="off" required>
${children.length ? html`<label><input type="checkbox" name="cascade" value="1"> Also delete its ${children.length} child ${children.length === 1 ? 'team' : 'teams'} (and every team below them)</label>` : ''}
<button type="submit">Delete team</button>
</form></section>`;
}

export function teamPage(res: Response, signed: SignedIn, data: TeamPageData, notice?: SafeHtml, status = 200): void {
  const { team, role, own, parent, children } = data;
  const csrf = signed.session.csrf;
  sendPage(res, {
    title: team.name,
    shell: accountShell(signed, PAGES.teams),
    status,
    body: html`<h1>${team.name}</h1>
${notice ?? ''}
<p><code>${team.slug}</code> · Your role: <strong data-my-role>${role}</strong>${own ? '' : html` <span class="muted">(inherited from a parent team)</span>`}</p>
${parent ? html`<p>Parent team: <a href="${teamPath(parent._id)}">${parent.name}</a></p>` : ''}
${team.description ? html`<p>${team.description}</p>` : ''}
${may(role, 'update') ? html`<section><h2>Settings</h2>${settingsForm(csrf, data)}</section>` : ''}
${membersSection(csrf, team, role, data.members, data.invitations)}
${groupsSection(csrf, team, role)}
<section><h2>Child teams</h2>
${children.length === 0 ? html`<p class="muted">No child teams.</p>` : ''}
<ul class="children">${children.map((c) => html`<li><a href="${teamPath(c._id)}">${c.name}</a> <code>${c.slug}</code></li>`)}</ul>
${may(role, 'create-child') ? html`<p><a href="${PAGES.teams}?parent=${team._id}#new-team">Create a child team</a></p>` : ''}
</section>
${may(role, 'delete') ? deleteForm(csrf, data) : ''}
${
  own
    ? html`<section>${confirmedAction({ csrf, action: `${teamPath(team._id)}/leave`, label: 'Leave team', question: 'You lose the access the team gives you.', confirm: 'Yes, leave the team' })}</section>`
    : ''
}
<p><a href="${PAGES.teams}">Back to your teams</a></p>`,
  });
}
