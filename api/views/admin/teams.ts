// /admin/teams: every team on the instance, a page at a time, each with its
// delete form (typing the slug to confirm).
import type { Response } from 'express';
import type { TeamDoc } from '../../../lib/model/teams.js';
import { html, type SafeHtml } from '../../html/html.js';
import { csrfField } from '../../html/layout.js';
import { teamLabel } from '../teams.js';
import { adminPage, pager } from './layout.js';
import { ADMIN_PAGES } from '../../paths.js';

export const adminTeamDelete = (teamId: string) => `${ADMIN_PAGES.teams}/${teamId}/delete`;

export interface AdminTeamsData {
  teams: TeamDoc[];
  /** The teams of this page by id: a parent among them is named. */
  byId: Map<string, TeamDoc>;
  offset: number;
  size: number;
  hasMore: boolean;
}

function teamRow(csrf: string, team: TeamDoc, byId: Map<string, TeamDoc>): SafeHtml {
  const parent = team.parentId === null ? null : byId.get(team.parentId);
  const id = `confirm-${team._id}`;
  return html`<li data-team="${team._id}"><strong>${team.name}</strong> <code>${team.slug}</code>
${team.parentId === null ? '' : html`<span class="muted">child of ${parent ? teamLabel(parent) : 'another team'}</span>`}
<form method="post" action="${adminTeamDelete(team._id)}">
${csrfField(csrf)}
<label for="${id}">Type <code>${team.slug}</code> to delete this team</label>
<input id="${id}" name="confirm" type="text" maxlength="63" autocomplete="off" required>
<label><input type="checkbox" name="cascade" value="1"> Also delete its child teams</label>
<button type="submit">Delete ${team.slug}</button>
</form></li>`;
}

export function adminTeamsPage(res: Response, csrf: string, data: AdminTeamsData, notice?: SafeHtml, status = 200): void {
  adminPage(res, {
    title: 'Teams',
    area: ADMIN_PAGES.teams,
    notice,
    status,
    body: html`${data.teams.length === 0 ? html`<p class="muted">No teams${data.offset ? ' on this page' : ''}.</p>` : ''}
<ul class="teams">${data.teams.map((t) => teamRow(csrf, t, data.byId))}</ul>
${pager(ADMIN_PAGES.teams, {}, data.offset, data.size, data.hasMore)}`,
  });
}
