// The "your teams" page: the invitations the user may accept or decline,
// every team the user is in (directly or through a parent team) and the
// new-team form; plus the small pieces the team page
// shares (paths, option lists, the error notice).
import type { Response } from 'express';
import type { TeamDoc, UserTeam } from '../../lib/model/teams.js';
import type { TeamInvitationDoc } from '../../lib/model/team-invitations.js';
import type { UserDoc } from '../../lib/model/users.js';
import type { TeamRole } from '../../lib/model/team-roles.js';
import { html, type SafeHtml } from '../html/html.js';
import { csrfField, sendPage } from '../html/layout.js';
import { accountShell } from './account-nav.js';
import type { SignedIn } from '../http/signed-in.js';
import { PAGES } from '../paths.js';

export const teamPath = (teamId: string) => `${PAGES.teams}/${teamId}`;

/** What the new-team form shows: empty, or what was sent when it was refused. */
export interface TeamDraft {
  name: string;
  slug: string;
  description: string;
  parentId: string;
  memberGroups: boolean;
}

export const EMPTY_DRAFT: TeamDraft = { name: '', slug: '', description: '', parentId: '', memberGroups: false };

export const errorNotice = (message: string) => html`<p class="error" role="alert">${message}</p>`;

export const option = (value: string, label: string, selected: boolean) => html`<option value="${value}"${selected ? html` selected` : ''}>${label}</option>`;

export const checked = (on: boolean) => (on ? html` checked` : '');

export const teamLabel = (team: TeamDoc) => `${team.name} (${team.slug})`;

/** The roles a select offers: only those the signed-in user may give. */
export const roleOptions = (roles: TeamRole[], selected: TeamRole) => roles.map((r) => option(r, r, r === selected));

/** Parent choices: the top level, then the teams the user may add child teams to. */
export const parentOptions = (choices: TeamDoc[], selected: string) => [
  option('', 'None (a top-level team)', selected === ''),
  ...choices.map((t) => option(t._id, teamLabel(t), t._id === selected)),
];

/** An invitation the signed-in user may accept, with its team and who sent it (undefined when that account is gone). */
export interface ReceivedInvitation {
  invitation: TeamInvitationDoc;
  team: TeamDoc;
  inviter: UserDoc | undefined;
}

export const invitationPath = (invitationId: string) => `${PAGES.teams}/invitations/${invitationId}`;

function invitationsSection(csrf: string, invitations: ReceivedInvitation[]): SafeHtml {
  if (invitations.length === 0) return html``;
  return html`<section id="invitations"><h2>Invitations</h2>
<ul class="invitations">${invitations.map(
    ({ invitation, team, inviter }) => html`<li data-invitation="${invitation._id}"><strong>${team.name}</strong> <code>${team.slug}</code>
<p>${inviter ? `${inviter.name || inviter.username} (${inviter.username})` : 'A former member'} invites you to join as <span class="badge">${invitation.role}</span>. Until ${invitation.expiresAt.toISOString().slice(0, 10)}.</p>
<form class="inline" method="post" action="${invitationPath(invitation._id)}/accept">${csrfField(csrf)}<button type="submit">Accept and join ${team.name}</button></form>
<form class="inline" method="post" action="${invitationPath(invitation._id)}/decline">${csrfField(csrf)}<button type="submit" class="secondary">Decline</button></form></li>`,
  )}</ul></section>`;
}

export interface TeamsPageData {
  /** Invitations the user may accept or decline. */
  invitations: ReceivedInvitation[];
  teams: UserTeam[];
  /** Teams the user may create child teams in. */
  parents: TeamDoc[];
  draft: TeamDraft;
}

export function teamsPage(res: Response, signed: SignedIn, { invitations, teams, parents, draft }: TeamsPageData, notice?: SafeHtml, status = 200): void {
  const { session } = signed;
  sendPage(res, {
    title: 'Your teams',
    shell: accountShell(signed, PAGES.teams),
    status,
    body: html`<h1>Your teams</h1>
${notice ?? ''}
${invitationsSection(session.csrf, invitations)}
${teams.length === 0 ? html`<p class="muted">You are not in any team yet.</p>` : ''}
<ul class="teams">${teams.map(
      (t) => html`<li><a href="${teamPath(t.team._id)}">${t.team.name}</a> <code>${t.team.slug}</code> <span class="badge">${t.role}</span>
${t.direct ? '' : html`<span class="muted" data-inherited>inherited from a parent team</span>`}</li>`,
    )}</ul>
<section id="new-team"><h2>New team</h2>
<form method="post" action="${PAGES.teams}">
${csrfField(session.csrf)}
<label for="team-name">Name</label>
<input id="team-name" name="name" type="text" maxlength="100" required value="${draft.name}">
<label for="team-slug">Slug (lowercase letters, digits and hyphens; unique)</label>
<input id="team-slug" name="slug" type="text" maxlength="63" required value="${draft.slug}">
<label for="team-description">Description</label>
<input id="team-description" name="description" type="text" maxlength="500" value="${draft.description}">
<label for="team-parent">Parent team</label>
<select id="team-parent" name="parent_id">${parentOptions(parents, draft.parentId)}</select>
<label><input type="checkbox" name="member_groups" value="1"${checked(draft.memberGroups)}> Enable member groups</label>
<button type="submit">Create team</button>
</form>
</section>`,
  });
}
