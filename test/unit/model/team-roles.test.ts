import { assignableRoles, canManage, highestRole, may, mayGrant, memberChangeAllowed, moveAllowed, TEAM_ROLES } from '../../../lib/model/team-roles.js';
import { boundTeamScope, isKnownScope, parseBoundTeamScope, singleTeamPermission } from '../../../lib/model/scopes.js';
import { NewTeamInput, TeamChanges } from '../../../lib/model/teams.js';

describe('team roles', () => {
  it('ranks member < admin < co-owner < owner, and the effective role is the highest held', () => {
    expect(highestRole([])).toBeNull();
    expect(highestRole(['member', 'admin'])).toBe('admin');
    expect(highestRole(['co-owner', 'member', 'owner', 'admin'])).toBe('owner');
  });

  it.each([
    ['member', ['read']],
    ['admin', ['read', 'update', 'manage-members', 'create-child']],
    ['co-owner', ['read', 'update', 'manage-members', 'create-child', 'delete']],
    ['owner', ['read', 'update', 'manage-members', 'create-child', 'move', 'delete']],
  ] as const)('%s may do exactly %j', (role, actions) => {
    const all = ['read', 'update', 'manage-members', 'create-child', 'move', 'delete'] as const;
    expect(all.filter((a) => may(role, a))).toEqual(actions);
  });

  it('a stranger may do nothing and manages nothing', () => {
    expect(may(null, 'read')).toBe(false);
    expect(canManage(null)).toBe(false);
    expect(assignableRoles(null)).toEqual([]);
  });

  it('caps member writes at the actor’s own role; only an owner makes owners', () => {
    expect(assignableRoles('member')).toEqual([]);
    expect(assignableRoles('admin')).toEqual(['member', 'admin']);
    expect(assignableRoles('co-owner')).toEqual(['member', 'admin', 'co-owner']);
    expect(assignableRoles('owner')).toEqual(TEAM_ROLES);
    // raise to owner refused, lower allowed, a higher member untouchable
    expect(memberChangeAllowed('admin', 'member', 'owner')).toBe(false);
    expect(memberChangeAllowed('admin', 'admin', 'member')).toBe(true);
    expect(memberChangeAllowed('admin', 'co-owner', 'member')).toBe(false);
    expect(memberChangeAllowed('admin', 'co-owner', null)).toBe(false);
    expect(memberChangeAllowed('co-owner', null, 'co-owner')).toBe(true);
    expect(memberChangeAllowed('owner', 'owner', 'member')).toBe(true);
  });

  it('moves a team only for an owner of it and of its current parent, to where they may add child teams', () => {
    const top = 'top-level' as const;
    expect(moveAllowed({ team: 'owner', currentParent: top, newParent: 'admin' })).toBe(true);
    expect(moveAllowed({ team: 'owner', currentParent: 'owner', newParent: top })).toBe(true);
    expect(moveAllowed({ team: 'owner', currentParent: top, newParent: top })).toBe(true);
    // A co-owner under a team of their own (or an accomplice's) would raise someone to owner.
    expect(moveAllowed({ team: 'co-owner', currentParent: top, newParent: 'owner' })).toBe(false);
    expect(moveAllowed({ team: 'co-owner', currentParent: top, newParent: 'admin' })).toBe(false);
    // A direct owner of a child team does not take it from its parent's owners.
    expect(moveAllowed({ team: 'owner', currentParent: 'co-owner', newParent: top })).toBe(false);
    expect(moveAllowed({ team: 'owner', currentParent: null, newParent: 'owner' })).toBe(false);
    expect(moveAllowed({ team: 'owner', currentParent: 'owner', newParent: 'member' })).toBe(false);
    expect(moveAllowed({ team: 'owner', currentParent: 'owner', newParent: null })).toBe(false);
  });

  it('binds team:delete only for owners and co-owners, the rest for any manager', () => {
    expect(mayGrant('admin', 'delete')).toBe(false);
    expect(mayGrant('co-owner', 'delete')).toBe(true);
    expect(mayGrant('admin', 'member:write')).toBe(true);
    expect(mayGrant('member', 'read')).toBe(false);
  });
});

describe('team scopes and input', () => {
  it('parses bound scopes and names unbound ones', () => {
    expect(parseBoundTeamScope('team:abc-1:member:write')).toEqual({ teamId: 'abc-1', permission: 'member:write' });
    expect(parseBoundTeamScope('team:abc:admin')).toBeNull();
    // Unbound member permissions are not `write`/`read` bound to a team called "member".
    expect(parseBoundTeamScope('team:member:write')).toBeNull();
    expect(parseBoundTeamScope('team:member:read')).toBeNull();
    expect(parseBoundTeamScope(`team:${'a'.repeat(65)}:read`)).toBeNull();
    expect(singleTeamPermission('team:member:profile:read')).toBe('member:profile:read');
    expect(singleTeamPermission('teams:read')).toBeNull();
    expect(boundTeamScope('t1', 'delete')).toBe('team:t1:delete');
    expect(isKnownScope('team:t1:delete')).toBe(true);
  });

  it('refuses bad team input with the field named', () => {
    expect(NewTeamInput.safeParse({ name: 'A', slug: 'a' }).success).toBe(true);
    for (const bad of [
      { name: '', slug: 'a' },
      { name: 'A', slug: 'A_b' },
      { name: 'A', slug: '-a' },
      { name: 'A', slug: 'a', extra: 1 },
      { name: 'A', slug: 'a', parent_id: 'x y' },
    ]) {
      expect(NewTeamInput.safeParse(bad).success).toBe(false);
    }
    expect(TeamChanges.safeParse({}).success).toBe(false);
    expect(TeamChanges.safeParse({ parent_id: null }).success).toBe(true);
  });
});
