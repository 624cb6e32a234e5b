// /admin/teams: every team on the instance, a page at a time, and one team's
// page: where it sits in the hierarchy, and its delete form (typing the slug
// to confirm).
import type { Response } from 'express';
import type { TeamDoc } from '../../../lib/model/teams.js';
import { html, type SafeHtml } from '../../html/html.js';
import { csrfField } from '../../html/layout.js';
import { copyable } from '../../html/copyable.js';
import { teamLabel } from '../teams.js';
import { adminPage, pager } from './layout.js';
import { dataTable, type Column } from './table.js';
import { ADMIN_PAGES } from '../../paths.js';

export const adminTeamPath = (teamId: string) => `${ADMIN_PAGES.teams}/${encodeURIComponent(teamId)}`;
export const adminTeamDelete = (teamId: string) => `${adminTeamPath(teamId)}/delete`;

export interface AdminTeamsData {
  teams: TeamDoc[];
  /** The teams of this page by id: a parent among them is named. */
  byId: Map<string, TeamDoc>;
  offset: number;
  size: number;
  hasMore: boolean;
}

const day = (d: Date) => html`<time datetime="${d.toISOString()}">${d.toISOString().slice(0, 10)}</time>`;

function parentOf(team: TeamDoc, byId: Map<string, TeamDoc>): SafeHtml | string {
  if (team.parentId === null) return html`<span class="muted">none</span>`;
  const parent = byId.get(team.parentId);
  return html`<a href="${adminTeamPath(team.parentId)}">${parent ? teamLabel(parent) : 'another team'}</a>`;
}

export function adminTeamsPage(res: Response, data: AdminTeamsData, notice?: SafeHtml, status = 200): void {
  const columns: Column<TeamDoc>[] = [
    { label: 'Name', cell: (t) => html`<a href="${adminTeamPath(t._id)}">${t.name}</a>` },
    { label: 'Slug', cell: (t) => html`<code>${t.slug}</code>` },
    { label: 'Parent', cell: (t) => parentOf(t, data.byId) },
    { label: 'Created', cell: (t) => day(t.createdAt) },
  ];
  adminPage(res, {
    title: 'Teams',
    area: ADMIN_PAGES.teams,
    notice,
    status,
    body: html`${
      data.teams.length === 0
        ? html`<p class="muted">No teams${data.offset ? ' on this page' : ''}.</p>`
        : dataTable('Teams', columns, data.teams, (t) => html`data-team="${t._id}"`)
    }
${pager(ADMIN_PAGES.teams, {}, data.offset, data.size, data.hasMore)}`,
  });
}

export interface AdminTeamData {
  team: TeamDoc;
  parent: TeamDoc | null;
  children: TeamDoc[];
}

export function adminTeamPage(res: Response, csrf: string, { team, parent, children }: AdminTeamData, notice?: SafeHtml, status = 200): void {
  adminPage(res, {
    title: team.name,
    area: ADMIN_PAGES.teams,
    notice,
    status,
    body: html`<p>${copyable(team._id, 'team ID')} · <code>${team.slug}</code> · created ${day(team.createdAt)}</p>
${team.description ? html`<p>${team.description}</p>` : ''}
<p>Parent team: ${parent ? html`<a href="${adminTeamPath(parent._id)}">${teamLabel(parent)}</a>` : html`<span class="muted">none</span>`}</p>
<section><h2>Child teams</h2>
${children.length === 0 ? html`<p class="muted">No child teams.</p>` : html`<ul>${children.map((c) => html`<li><a href="${adminTeamPath(c._id)}">${teamLabel(c)}</a></li>`)}</ul>`}
</section>
<section data-team="${team._id}"><h2>Delete this team</h2>
<form method="post" action="${adminTeamDelete(team._id)}">
${csrfField(csrf)}
<label for="confirm-${team._id}">Type <code>${team.slug}</code> to delete this team</label>
<input id="confirm-${team._id}" name="confirm" type="text" maxlength="63" autocomplete="off" required>
<label><input type="checkbox" name="cascade" value="1"> Also delete its child teams</label>
<button type="submit">Delete ${team.slug}</button>
</form></section>
<p><a href="${ADMIN_PAGES.teams}">All teams</a></p>`,
  });
}
