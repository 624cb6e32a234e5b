// Who stands where in the team tree: a team's ancestors, a user's effective
// role on one team, and every team a user belongs to (directly or through an
// ancestor), nearest first. The rules themselves are in model/team-roles.ts.
import { MAX_TEAM_DEPTH, type TeamDoc, type UserTeam } from '../model/teams.js';
import { highestRole, type TeamRole } from '../model/team-roles.js';
import type { Store } from '../store/db.js';
import { childTeams, findTeam, findTeams, membershipsOf } from '../store/teams.js';

/**
 * The team and its ancestors, nearest first. Bounded by the depth limit, so a
 * cycle left by two concurrent moves cannot loop (see team-changes.ts).
 */
export async function lineage(store: Store, team: TeamDoc): Promise<TeamDoc[]> {
  const chain = [team];
  let parentId = team.parentId;
  while (parentId !== null && chain.length <= MAX_TEAM_DEPTH && !chain.some((t) => t._id === parentId)) {
    const parent = await findTeam(store, parentId);
    if (!parent) break;
    chain.push(parent);
    parentId = parent.parentId;
  }
  return chain;
}

/** The user's effective role on a team: the highest direct role on it or any ancestor; null for a stranger. */
export async function effectiveRole(store: Store, userId: string, team: TeamDoc): Promise<TeamRole | null> {
  const chain = await lineage(store, team);
  const direct = await membershipsOf(
    store,
    userId,
    chain.map((t) => t._id),
  );
  return highestRole(direct.map((m) => m.role));
}

/** The user's direct groups on a team (groups are not inherited). */
async function directGroups(store: Store, userId: string, teamId: string): Promise<string[]> {
  const [m] = await membershipsOf(store, userId, [teamId]);
  return m?.groups ?? [];
}

/** A team with the user's standing in it, or null when the user has no role there. */
export async function userTeam(store: Store, userId: string, team: TeamDoc): Promise<UserTeam | null> {
  const chain = await lineage(store, team);
  const memberships = await membershipsOf(
    store,
    userId,
    chain.map((t) => t._id),
  );
  const role = highestRole(memberships.map((m) => m.role));
  if (role === null) return null;
  const distance = chain.findIndex((t) => memberships.some((m) => m.teamId === t._id));
  return { team, role, groups: distance === 0 ? await directGroups(store, userId, team._id) : [], direct: distance === 0, distance };
}

/**
 * Every team the user belongs to, directly or through an ancestor, nearest
 * first (direct memberships, then one level down, …), at most `limit`. One
 * query per tree level: the depth limit bounds the walk.
 */
export async function userTeams(store: Store, userId: string, limit: number): Promise<UserTeam[]> {
  const memberships = await membershipsOf(store, userId);
  const directTeams = await findTeams(
    store,
    memberships.map((m) => m.teamId),
  );
  const byTeam = new Map(memberships.map((m) => [m.teamId, m]));
  // A member of both a team and its ancestor: the team's effective role also counts the ancestor's.
  const found = new Map<string, UserTeam>();
  for (const team of directTeams) {
    const m = byTeam.get(team._id)!;
    found.set(team._id, { team, role: m.role, groups: m.groups, direct: true, distance: 0 });
  }
  for (const t of found.values()) {
    const inherited = await lineage(store, t.team);
    t.role = highestRole([t.role, ...inherited.flatMap((a) => (byTeam.has(a._id) ? [byTeam.get(a._id)!.role] : []))])!;
  }
  let frontier = [...found.values()];
  for (let level = 1; frontier.length > 0 && level < MAX_TEAM_DEPTH && found.size < limit; level++) {
    const roleOf = new Map(frontier.map((t) => [t.team._id, t.role]));
    const children = await childTeams(
      store,
      frontier.map((t) => t.team._id),
    );
    frontier = [];
    for (const child of children) {
      if (found.has(child._id)) continue;
      const t: UserTeam = { team: child, role: roleOf.get(child.parentId!)!, groups: [], direct: false, distance: level };
      found.set(child._id, t);
      frontier.push(t);
    }
  }
  return [...found.values()].sort((a, b) => a.distance - b.distance || a.team.slug.localeCompare(b.team.slug)).slice(0, limit);
}
