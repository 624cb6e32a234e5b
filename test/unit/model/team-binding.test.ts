// Single-team scopes at consent: the permissions an app asks for, the scope
// as granted once the user picked a team, the teams an earlier consent lets
// Keyflow grant again without asking, and what the audit log records.
import { bindTeamScopes, boundTeamGrants, previouslyBoundTeams, requestedTeamPermissions } from '../../../lib/model/team-binding.js';

describe('requestedTeamPermissions', () => {
  it('lists the unbound single-team permissions asked for; none means no team picker', () => {
    expect(requestedTeamPermissions(['openid', 'team:read', 'team:member:write', 'teams:read'])).toEqual(['read', 'member:write']);
    expect(requestedTeamPermissions(['openid', 'teams:read', 'team:t1:read'])).toEqual([]);
  });
});

describe('bindTeamScopes', () => {
  it('binds every unbound single-team scope to the picked team and leaves the rest as asked', () => {
    expect(bindTeamScopes(['openid', 'team:read', 'team:member:profile:read', 'teams:read'], 't1')).toEqual([
      'openid',
      'team:t1:read',
      'team:t1:member:profile:read',
      'teams:read',
    ]);
    expect(bindTeamScopes(['openid', 'team:t2:read'], 't1')).toEqual(['openid', 'team:t2:read']);
  });
});

describe('previouslyBoundTeams', () => {
  const consented = ['openid', 'team:t1:read', 'team:t1:write', 'team:t2:read'];

  it('gives the teams an earlier consent bound every asked permission to', () => {
    expect(previouslyBoundTeams(consented, ['read'])).toEqual(['t1', 't2']);
    expect(previouslyBoundTeams(consented, ['read', 'write'])).toEqual(['t1']);
    expect(previouslyBoundTeams(consented, ['delete'])).toEqual([]);
    expect(previouslyBoundTeams(['openid'], ['read'])).toEqual([]);
  });
});

describe('boundTeamGrants', () => {
  it('groups the bound scopes by team, for the audit log', () => {
    expect(boundTeamGrants(['openid', 'team:t1:read', 'team:t2:member:read', 'team:t1:write', 'team:read'])).toEqual([
      { teamId: 't1', permissions: ['read', 'write'] },
      { teamId: 't2', permissions: ['member:read'] },
    ]);
    expect(boundTeamGrants(['openid', 'teams:read'])).toEqual([]);
  });
});
