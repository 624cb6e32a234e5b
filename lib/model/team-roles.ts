// The team role rules, in one place: ranking, inheritance, what each role may
// do, the cap on member changes, and which role a single-team scope needs.
// Nothing else compares roles.

export const TEAM_ROLES = ['member', 'admin', 'co-owner', 'owner'] as const; // lowest first
export type TeamRole = (typeof TEAM_ROLES)[number];

export function isTeamRole(value: unknown): value is TeamRole {
  return typeof value === 'string' && (TEAM_ROLES as readonly string[]).includes(value);
}

const rank = (role: TeamRole): number => TEAM_ROLES.indexOf(role);

/**
 * Effective role: the highest of the user's direct roles on a team and on each
 * of its ancestors (a grandparent's admin administers the grandchild).
 */
export function highestRole(roles: Iterable<TeamRole>): TeamRole | null {
  let best: TeamRole | null = null;
  for (const r of roles) if (best === null || rank(r) > rank(best)) best = r;
  return best;
}

/** What a team's members may do, by effective role. */
export type TeamAction =
  /** See the team, its members and groups. */
  | 'read'
  /** Change name, slug, description, member groups setting; add, rename and remove groups. */
  | 'update'
  /** Add, change and remove members (within the cap below). */
  | 'manage-members'
  /** Create a child team under this one. */
  | 'create-child'
  /** Move the team under another parent (or to the top level); see moveAllowed. */
  | 'move'
  /** Delete the team (and, when asked, its child teams). */
  | 'delete';

const LEAST_ROLE_FOR: Record<TeamAction, TeamRole> = {
  read: 'member',
  update: 'admin',
  'manage-members': 'admin',
  'create-child': 'admin',
  move: 'owner',
  delete: 'co-owner',
};

export function may(role: TeamRole | null, action: TeamAction): boolean {
  return role !== null && rank(role) >= rank(LEAST_ROLE_FOR[action]);
}

/**
 * Whether a move may happen, given the mover's effective roles on the team,
 * on its current parent and on the new parent ('top-level' where there is
 * none). A move hands the subtree to everyone
 * above the new parent and takes it from everyone above the old one, so it
 * must give nobody a role the mover could not give: the mover owns the team
 * (an owner may make anyone owner of it anyway) and its current parent (whose
 * owners the move takes it from), and may add child teams at the new parent.
 * A co-owner moves nothing: under a team of their own, or of an accomplice
 * who made them admin there, someone would inherit owner and could remove the
 * owner.
 */
export function moveAllowed(roles: { team: TeamRole | null; currentParent: TeamRole | null | 'top-level'; newParent: TeamRole | null | 'top-level' }): boolean {
  const { team, currentParent, newParent } = roles;
  return may(team, 'move') && (currentParent === 'top-level' || currentParent === 'owner') && (newParent === 'top-level' || may(newParent, 'create-child'));
}

/** Owners, co-owners and admins manage a team: they are the ones the team picker lists. */
export function canManage(role: TeamRole | null): boolean {
  return may(role, 'manage-members');
}

/**
 * The member-write cap: the roles an actor may give. Nobody gives more than
 * they hold, and only an owner makes owners.
 */
export function assignableRoles(actor: TeamRole | null): TeamRole[] {
  if (!canManage(actor)) return [];
  return TEAM_ROLES.filter((r) => rank(r) <= rank(actor!));
}

/**
 * Whether an actor may change a member from `from` to `to` (null: not a
 * member / removed). The member's current role must be within the actor's
 * reach too: an admin neither demotes nor removes a co-owner.
 */
export function memberChangeAllowed(actor: TeamRole | null, from: TeamRole | null, to: TeamRole | null): boolean {
  const reach = assignableRoles(actor);
  return (from === null || reach.includes(from)) && (to === null || reach.includes(to));
}

/** The single-team permissions an app may ask for; consent binds them to one team. */
export const SINGLE_TEAM_PERMISSIONS = ['read', 'write', 'delete', 'member:read', 'member:write', 'member:profile:read'] as const;
export type SingleTeamPermission = (typeof SINGLE_TEAM_PERMISSIONS)[number];

/**
 * What the granting user's effective role must be to bind a permission to a
 * team: every single-team scope needs a manager (owner, co-owner, admin);
 * `team:delete` needs the role that may delete.
 */
export function mayGrant(role: TeamRole | null, permission: SingleTeamPermission): boolean {
  return permission === 'delete' ? may(role, 'delete') : canManage(role);
}

/** The action a bound permission lets a token take at the team's endpoints. */
export const PERMISSION_ACTION: Record<SingleTeamPermission, TeamAction> = {
  read: 'read',
  write: 'update',
  delete: 'delete',
  'member:read': 'read',
  'member:write': 'manage-members',
  'member:profile:read': 'read',
};
