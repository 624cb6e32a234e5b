// Single-team scopes at consent: an app asks for `team:<permission>`; the user
// picks one team and every such scope becomes `team:<team-id>:<permission>`.
// Only the bound form is granted, so tokens, introspection and consent records
// never hold an unbound one.
import { boundTeamScope, parseBoundTeamScope, singleTeamPermission } from './scopes.js';
import type { SingleTeamPermission } from './team-roles.js';

/** The unbound single-team permissions a request asks for (none: no team picker). */
export function requestedTeamPermissions(scope: readonly string[]): SingleTeamPermission[] {
  return scope.flatMap((s) => {
    const p = singleTeamPermission(s);
    return p ? [p] : [];
  });
}

/** The scope as granted: each unbound single-team scope bound to `teamId`, the rest unchanged. */
export function bindTeamScopes(scope: readonly string[], teamId: string): string[] {
  return scope.map((s) => {
    const p = singleTeamPermission(s);
    return p ? boundTeamScope(teamId, p) : s;
  });
}

/**
 * Teams an earlier consent bound every one of `permissions` to: the candidates
 * for granting again without asking. More than one means the user must pick.
 */
export function previouslyBoundTeams(consented: readonly string[], permissions: readonly SingleTeamPermission[]): string[] {
  const teams = new Set(consented.flatMap((s) => parseBoundTeamScope(s)?.teamId ?? []));
  return [...teams].filter((teamId) => permissions.every((p) => consented.includes(boundTeamScope(teamId, p))));
}

/** The bound single-team scopes of a granted scope, grouped by team: what the audit log records per grant. */
export function boundTeamGrants(scope: readonly string[]): { teamId: string; permissions: SingleTeamPermission[] }[] {
  const byTeam = new Map<string, SingleTeamPermission[]>();
  for (const s of scope) {
    const bound = parseBoundTeamScope(s);
    if (bound) byTeam.set(bound.teamId, [...(byTeam.get(bound.teamId) ?? []), bound.permission]);
  }
  return [...byTeam].map(([teamId, permissions]) => ({ teamId, permissions }));
}
