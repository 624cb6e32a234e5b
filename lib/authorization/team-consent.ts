// The team picker's server side: which teams a user may bind single-team
// scopes to, and whether a chosen (or remembered) team still allows the grant.
// The role rules themselves: lib/model/team-roles.ts.
import { MAX_LISTED_TEAMS, type TeamDoc } from '../model/teams.js';
import { canManage, mayGrant, type SingleTeamPermission, type TeamRole } from '../model/team-roles.js';
import type { Store } from '../store/db.js';
import { findTeam } from '../store/teams.js';
import { effectiveRole, userTeams } from '../teams/membership.js';

export interface TeamChoice {
  team: TeamDoc;
  role: TeamRole;
  inherited: boolean;
  /** False when the user manages the team but cannot grant every permission asked (team:delete needs owner or co-owner). */
  grantable: boolean;
}

/** Every team the user manages, directly or through an ancestor: what the picker lists. */
export async function teamChoices(store: Store, userId: string, permissions: readonly SingleTeamPermission[]): Promise<TeamChoice[]> {
  const teams = await userTeams(store, userId, MAX_LISTED_TEAMS);
  return teams
    .filter((t) => canManage(t.role))
    .map((t) => ({ team: t.team, role: t.role, inherited: !t.direct, grantable: permissions.every((p) => mayGrant(t.role, p)) }));
}

/** Why the user cannot bind `permissions` to the team now (null: they can). Checked at consent and again at code issuance. */
export async function teamGrantRefusal(store: Store, userId: string, teamId: string, permissions: readonly SingleTeamPermission[]): Promise<string | null> {
  const team = await findTeam(store, teamId);
  const role = team ? await effectiveRole(store, userId, team) : null;
  if (!team || !canManage(role)) return 'Pick a team you manage (owner, co-owner or admin).';
  const refused = permissions.find((p) => !mayGrant(role, p));
  return refused ? `Granting team:${refused} on ${team.name} needs the owner or co-owner role; yours is ${role}.` : null;
}
