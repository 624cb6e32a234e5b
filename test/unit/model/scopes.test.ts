// The scope vocabulary: which scope strings Keyflow knows (a client may
// register and request only those), the team and cross-app patterns, which
// scopes name Keyflow's own API in a token's audience, and how the scope
// parameter is split.
import {
  boundTeamScope,
  crossAppClientId,
  isKeyflowApiScope,
  isKnownScope,
  isSingleTeamScope,
  isSiteScope,
  isTeamScope,
  parseBoundTeamScope,
  parseScopeParam,
  SCOPES,
  singleTeamPermission,
  SITE_CONFIRMATION_PHRASE,
} from '../../../lib/model/scopes.js';
import { SINGLE_TEAM_PERMISSIONS } from '../../../lib/model/team-roles.js';

describe('the catalogue', () => {
  it('describes every scope in plain words for the consent page', () => {
    for (const [name, info] of Object.entries(SCOPES)) expect([name, info.description.length > 0]).toEqual([name, true]);
  });

  it('marks the admin scopes admin-only and the site scopes as site scopes, and nothing else', () => {
    const names = Object.keys(SCOPES);
    expect(names.filter((s) => SCOPES[s]!.adminOnly)).toEqual(names.filter((s) => s.startsWith('admin:')));
    expect(names.filter(isSiteScope)).toEqual(names.filter((s) => s.startsWith('site:')));
    expect(SITE_CONFIRMATION_PHRASE).toBe('grant site access');
  });
});

describe('isKnownScope', () => {
  it.each([
    'openid',
    'offline_access',
    'profile:write',
    'admin:users:read',
    'site:token:revoke',
    'team:read',
    'team:member:write',
    'team:t-1_A:read',
    `team:${'a'.repeat(64)}:read`,
    'app:client-1.v2_x:*',
  ])('knows %s', (scope) => {
    expect(isKnownScope(scope)).toBe(true);
  });

  it.each([
    '',
    'OPENID',
    'openid ',
    'admin:users',
    'team:t1:owner',
    'team:',
    `team:${'a'.repeat(65)}:read`,
    'team:t 1:read',
    'app:client-1:read',
    'app::*',
    'app:a/b:*',
    'teams:everything',
  ])('does not know %j', (scope) => {
    expect(isKnownScope(scope)).toBe(false);
  });

  // A client could once register these and receive tokens carrying them:
  // `scope in SCOPES` also found the names every object inherits.
  it.each(['toString', 'constructor', '__proto__', 'hasOwnProperty'])('does not know %s, inherited by every object', (scope) => {
    expect(isKnownScope(scope)).toBe(false);
    expect(isKeyflowApiScope(scope)).toBe(false);
  });
});

describe('team scopes', () => {
  it('tells the unbound single-team form from the bound one', () => {
    for (const p of SINGLE_TEAM_PERMISSIONS) {
      expect(isSingleTeamScope(`team:${p}`)).toBe(true);
      expect(singleTeamPermission(`team:${p}`)).toBe(p);
      expect(parseBoundTeamScope(boundTeamScope('t1', p))).toEqual({ teamId: 't1', permission: p });
    }
    expect(isSingleTeamScope('team:t1:read')).toBe(false);
    expect(singleTeamPermission('team:t1:read')).toBeNull();
    expect(singleTeamPermission('teams:read')).toBeNull();
  });

  it('reads an unbound permission with a colon as itself, never as a permission bound to a team', () => {
    expect(isSingleTeamScope('team:member:write')).toBe(true);
    expect(parseBoundTeamScope('team:member:write')).toBeNull();
    expect(parseBoundTeamScope('team:t1:member:write')).toEqual({ teamId: 't1', permission: 'member:write' });
  });

  it('counts every team tier as a team scope, and nothing else', () => {
    for (const scope of ['teams:read', 'teams:create', 'site:team:read', 'team:read', 'team:t1:write'])
      expect([scope, isTeamScope(scope)]).toEqual([scope, true]);
    for (const scope of ['openid', 'site:user:read', 'apps:read', 'app:team:*']) expect([scope, isTeamScope(scope)]).toEqual([scope, false]);
  });
});

describe('crossAppClientId', () => {
  it('reads the client of app:<client_id>:*', () => {
    expect(crossAppClientId('app:billing:*')).toBe('billing');
    expect(crossAppClientId('app:billing:read')).toBeNull();
    expect(crossAppClientId('app:*')).toBeNull();
    expect(crossAppClientId('xapp:billing:*')).toBeNull();
  });
});

describe('isKeyflowApiScope', () => {
  it('is true for the scopes Keyflow’s own API and UserInfo serve', () => {
    for (const scope of ['openid', 'profile', 'email', 'apps:read', 'admin:config:write', 'site:user:read', 'team:read', 'team:t1:read'])
      expect([scope, isKeyflowApiScope(scope)]).toEqual([scope, true]);
  });

  it('is false for offline_access, cross-app scopes and unknown ones', () => {
    for (const scope of ['offline_access', 'app:billing:*', 'bogus']) expect([scope, isKeyflowApiScope(scope)]).toEqual([scope, false]);
  });
});

describe('parseScopeParam', () => {
  it('splits on spaces, dropping empties and repeats, keeping the order', () => {
    expect(parseScopeParam('openid  email openid profile ')).toEqual(['openid', 'email', 'profile']);
    expect(parseScopeParam('')).toEqual([]);
    expect(parseScopeParam(undefined)).toEqual([]);
    // Only the space separates (RFC 6749 section 3.3): a tab is part of a scope token, which then is unknown.
    expect(parseScopeParam('openid\temail')).toEqual(['openid\temail']);
  });
});
